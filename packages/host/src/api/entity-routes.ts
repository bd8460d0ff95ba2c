/**
 * CRUD on every entity of the model with no per-entity wiring (spec 4.2, api-conventions: Reads
 * and Writes). Reads go through the OData planner (parse → bind → one statement, cached by
 * shape); writes through core's write pipeline; each request in one tenant transaction.
 */
import {
  createRecord,
  type Database,
  deleteRecord,
  type Model,
  notFound,
  PromptCollector,
  type PromptEnvelope,
  ServiceError,
  type Session,
  updateRecord,
  type WriteContext,
} from "@bizdata/core";
import {
  keyOf,
  parseResourcePath,
  type QueryLimits,
  ReadPlanner,
  resolveEntity,
  runCollection,
  runCount,
  runSingle,
} from "@bizdata/odata";
import { WorkflowPrompts } from "@bizdata/workflow";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { type Action, canCall, forbidden, type Roles, requireAll } from "../auth/permissions.js";
import type { BodyLimits } from "../http/body-limits.js";
import { isIeee754Compatible, readJsonBody } from "../http/request-json.js";
import { callMethod, type MethodResponse } from "./method-call.js";
import { changesetReferences, currentWorkflow, inRequestTransaction, requestPrompts } from "./request-transaction.js";

/** the workflow of a step, for reads of its staged state */
const workflowArgs = () => {
  const workflowId = currentWorkflow();
  return workflowId === undefined ? {} : { workflowId };
};

import { tenantInfo } from "./tenant-info.js";

/** a changeset's shared lookups, when the request is one of its parts */
const references = () => {
  const cache = changesetReferences();
  return cache === undefined ? {} : { references: cache };
};

export interface EntityRouteSettings {
  readonly queryLimits: QueryLimits;
  readonly bodyLimits: BodyLimits;
  readonly roles: Roles;
}

type Env = { Variables: AuthVariables };

const JSON_TYPE = "application/json";
// any Guid: planning the response shape before the write checks $select/$expand before anything is stored
const ANY_KEY = "00000000-0000-0000-0000-000000000000";

const guidOnly = (url: URL) => ![...url.searchParams.keys()].some((k) => /^\$(select|expand|compute)$/i.test(k));

/**
 * Adds the `@userprompts` envelope (spec 2.4) to a response object; left out when empty. With
 * `return=minimal` there is no body to carry it.
 */
export const withPrompts = (body: string | undefined, envelope: PromptEnvelope | undefined) =>
  body === undefined || envelope === undefined
    ? body
    : `{"${currentWorkflow() === undefined ? "@userprompts" : "@workflow.userprompts"}":${JSON.stringify(envelope)},${body.slice(1)}`;

/** a method's outcome as the response: its body with `@userprompts` when it has one */
const methodResponse = (c: Context, response: MethodResponse) => {
  if (response.body === undefined) return c.body(null, response.status as 204);
  return c.body(withPrompts(response.body, response.prompts) ?? "", response.status as 200, {
    "Content-Type": JSON_TYPE,
  });
};

const minimalResponse = (c: Context) => {
  c.header("Preference-Applied", "return=minimal");
  return c.body(null, 204);
};

/** `return=minimal` in `Prefer` (api-conventions: 204 instead of the entity) */
const wantsMinimal = (c: Context) => /(^|[,;\s])return=minimal\b/i.test(c.req.header("prefer") ?? "");

/** the resource path after `/api/`, decoded */
const resourcePath = (url: URL) => decodeURIComponent(url.pathname.slice(url.pathname.indexOf("/api/") + 5));

export function entityRoutes(db: Database, model: Model, settings: EntityRouteSettings) {
  const planner = new ReadPlanner(model, { limits: settings.queryLimits });
  const request = (c: Context<Env>) => {
    const url = new URL(c.req.url);
    const tenantId = c.get("principal").tenantId;
    const workflowId = currentWorkflow();
    return {
      url,
      tenantId,
      ieee754Compatible: isIeee754Compatible(c.req.raw.headers),
      ...(workflowId && { workflowId }),
    };
  };
  /** the prepared read that shapes a write's response body */
  const shapeOf = (entity: string, url: URL, ieee754Compatible: boolean) => {
    const staged = currentWorkflow() !== undefined;
    const planned = planner.plan({
      path: `${entity}(${ANY_KEY})`,
      search: url.searchParams,
      ieee754Compatible,
      staged,
    });
    if (planned.kind !== "entity") throw new Error("a keyed path plans as an entity read");
    return planned.prepared;
  };
  /** what a write needs: its context (tenant features, a changeset's lookups) and where its prompts go */
  const writing = async (tx: Session, tenantId: string, ieee754Compatible: boolean) => {
    // in a workflow questions wait for the user; on a plain request they take their default
    const prompts = requestPrompts(tx, tenantId);
    const tenant = await tenantInfo(tx, tenantId);
    const ctx: WriteContext = { session: tx, model, tenant, prompts, options: { ieee754Compatible }, ...references() };
    return { ctx, prompts };
  };
  const roles = settings.roles;
  const allowed = (c: Context<Env>, action: Action, entity: string) =>
    requireAll(roles, c.get("principal"), action, [entity]);
  /** a method call needs its grant: every method, the entity's, this one, or Read methods */
  const callable = (c: Context<Env>, entity: string, method: string) => {
    const declaration = Object.hasOwn(model.entity(entity)?.methods ?? {}, method)
      ? model.entity(entity)!.methods[method]
      : undefined;
    if (declaration && !canCall(roles, c.get("principal"), entity, method, declaration.type === "read")) {
      throw forbidden(`calling ${entity}.${method}`);
    }
  };

  return new Hono<Env>()
    .get("/*", async (c) => {
      const { url, tenantId, ieee754Compatible, workflowId } = request(c);
      const staged = workflowId !== undefined;
      const read = planner.plan({ path: resourcePath(url), search: url.searchParams, ieee754Compatible, staged });
      if (read.kind === "method") {
        callable(c, read.entity, read.method);
        return methodResponse(c, await callMethod(db, model, planner, settings.bodyLimits, c.req.raw, read, tenantId));
      }
      // the records of every entity the read returns, its $expand included
      requireAll(roles, c.get("principal"), "read", read.reads);
      const body = await inRequestTransaction<string | number | undefined>(
        db,
        tenantId,
        (tx) => {
          switch (read.kind) {
            case "collection": {
              const nextLink = (skip: number) => {
                const next = new URL(url);
                next.searchParams.set("$skip", String(skip));
                return `${next.pathname}${next.search}`;
              };
              return runCollection(tx, read.prepared, { tenantId, nextLink, ...(workflowId && { workflowId }) });
            }
            case "count":
              return runCount(tx, read.prepared, { tenantId, ...(workflowId && { workflowId }) });
            case "entity":
              return runSingle(tx, read.prepared, { tenantId, key: read.key, ...(workflowId && { workflowId }) });
          }
        },
        { readOnly: true },
      );
      if (read.kind === "count") return c.text(String(body), 200, { "Content-Type": "text/plain" });
      if (body === undefined)
        throw notFound(`${read.entity.name}(${read.kind === "entity" ? read.key : ""}) does not exist.`);
      return c.body(String(body), 200, { "Content-Type": JSON_TYPE });
    })
    .post("/*", async (c) => {
      const { url, tenantId, ieee754Compatible } = request(c);
      const path = parseResourcePath(resourcePath(url));
      if (path.kind === "method") {
        callable(c, path.entity, path.method);
        return methodResponse(c, await callMethod(db, model, planner, settings.bodyLimits, c.req.raw, path, tenantId));
      }
      if (path.kind !== "collection") {
        throw new ServiceError(405, "MethodNotAllowed", "POST creates records on an entity set: POST /api/{Entity}.");
      }
      const entity = resolveEntity(model, path.entity);
      allowed(c, "create", entity.name);
      const shape = shapeOf(entity.name, url, ieee754Compatible);
      const body = await readJsonBody(c.req.raw, settings.bodyLimits);
      const minimal = wantsMinimal(c);
      const result = await inRequestTransaction(db, tenantId, async (tx) => {
        const { ctx, prompts } = await writing(tx, tenantId, ieee754Compatible);
        const guid = await createRecord(ctx, entity, body);
        // without $select/$expand/$compute the body is the Guid alone: no need to read it back
        const response = minimal
          ? undefined
          : guidOnly(url)
            ? `{"Guid":"${guid}"}`
            : await runSingle(tx, shape, { tenantId, key: guid, ...workflowArgs() });
        return { guid, body: withPrompts(response, prompts.envelope()) };
      });
      c.header("Location", `/api/${entity.name}(${result.guid})`);
      if (result.body === undefined) return minimalResponse(c);
      return c.body(result.body, 201, { "Content-Type": JSON_TYPE });
    })
    .patch("/*", async (c) => {
      const { url, tenantId, ieee754Compatible } = request(c);
      const path = parseResourcePath(resourcePath(url));
      if (path.kind !== "entity") {
        throw new ServiceError(405, "MethodNotAllowed", "PATCH updates one record: PATCH /api/{Entity}({guid}).");
      }
      const entity = resolveEntity(model, path.entity);
      allowed(c, "update", entity.name);
      const guid = keyOf(path.key);
      const shape = shapeOf(entity.name, url, ieee754Compatible);
      const body = await readJsonBody(c.req.raw, settings.bodyLimits);
      const minimal = wantsMinimal(c);
      const result = await inRequestTransaction(db, tenantId, async (tx) => {
        const { ctx, prompts } = await writing(tx, tenantId, ieee754Compatible);
        await updateRecord(ctx, entity, guid, body);
        return withPrompts(
          minimal ? undefined : await runSingle(tx, shape, { tenantId, key: guid, ...workflowArgs() }),
          prompts.envelope(),
        );
      });
      if (result === undefined) return minimalResponse(c);
      return c.body(result, 200, { "Content-Type": JSON_TYPE });
    })
    .delete("/*", async (c) => {
      const { url, tenantId } = request(c);
      const path = parseResourcePath(resourcePath(url));
      if (path.kind !== "entity") {
        throw new ServiceError(405, "MethodNotAllowed", "DELETE removes one record: DELETE /api/{Entity}({guid}).");
      }
      const entity = resolveEntity(model, path.entity);
      allowed(c, "delete", entity.name);
      const guid = keyOf(path.key);
      await inRequestTransaction(db, tenantId, (tx) =>
        deleteRecord({ session: tx, tenant: { id: tenantId, features: new Set() }, ...references() }, entity, guid),
      );
      return c.body(null, 204);
    });
}
