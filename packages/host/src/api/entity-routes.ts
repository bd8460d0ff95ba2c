/**
 * CRUD on every entity of the model with no per-entity wiring (spec 4.2, api-conventions: Reads
 * and Writes). The URL goes through the OData parser, the read through bind → compile → one
 * statement, the write through core's write pipeline; all inside one tenant transaction.
 */
import {
  type AnyEntity,
  createRecord,
  type Database,
  deleteRecord,
  inTenant,
  isGuid,
  type Model,
  notFound,
  ServiceError,
  updateRecord,
} from "@bizdata/core";
import {
  bindQuery,
  parseQueryOptions,
  parseResourcePath,
  type QueryLimits,
  readCollection,
  readCount,
  readSingle,
} from "@bizdata/odata";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { canWrite } from "../auth/principal.js";
import type { BodyLimits } from "../http/body-limits.js";
import { isIeee754Compatible, readJsonBody } from "../http/request-json.js";

export interface EntityRouteSettings {
  readonly queryLimits: QueryLimits;
  readonly bodyLimits: BodyLimits;
}

type Env = { Variables: AuthVariables };

const JSON_TYPE = "application/json";

function resolveEntity(model: Model, name: string): AnyEntity {
  const entity = model.entity(name);
  if (entity === undefined) {
    const suggestion = [...model.entities.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
    throw notFound(
      `There is no entity set "${name}"${suggestion ? `; names are case sensitive: did you mean "${suggestion}"?` : "."}`,
      name,
    );
  }
  return entity;
}

function keyOf(key: string): string {
  if (!isGuid(key)) throw new ServiceError(400, "InvalidKey", `The key "${key}" is not a Guid.`, "path");
  return key.toLowerCase();
}

const forbidden = () => new ServiceError(403, "Forbidden", "Your role does not allow changing data.");

/** `return=minimal` in `Prefer` (api-conventions: 204 instead of the entity) */
const wantsMinimal = (c: Context) => /(^|[,;\s])return=minimal\b/i.test(c.req.header("prefer") ?? "");

export function entityRoutes(db: Database, model: Model, settings: EntityRouteSettings) {
  const parse = (c: Context) => {
    const url = new URL(c.req.url);
    const path = parseResourcePath(decodeURIComponent(url.pathname.slice(url.pathname.indexOf("/api/") + 5)));
    return { url, path, options: parseQueryOptions(url.searchParams, settings.queryLimits) };
  };
  const readContext = (c: Context<Env>) => ({
    tenantId: c.get("principal").tenantId,
    pageSize: settings.queryLimits.maxPageSize,
    ieee754Compatible: isIeee754Compatible(c.req.raw.headers),
  });

  return new Hono<Env>()
    .get("/*", async (c) => {
      const { url, path, options } = parse(c);
      if (path.kind === "method")
        throw new ServiceError(501, "MethodNotImplemented", "Custom methods are not available yet.");
      const entity = resolveEntity(model, path.entity);
      const query = bindQuery(model, entity, options, { limits: settings.queryLimits });
      const ctx = readContext(c);
      return inTenant(
        db,
        ctx.tenantId,
        async (tx) => {
          switch (path.kind) {
            case "count":
              return c.text(String(await readCount(tx, query, ctx)), 200, { "Content-Type": "text/plain" });
            case "entity": {
              const body = await readSingle(tx, query, keyOf(path.key), ctx);
              if (body === undefined) throw notFound(`${entity.name}(${path.key}) does not exist.`);
              return c.body(body, 200, { "Content-Type": JSON_TYPE });
            }
            case "collection": {
              const nextLink = (skip: number) => {
                const next = new URL(url);
                next.searchParams.set("$skip", String(skip));
                return `${next.pathname}${next.search}`;
              };
              return c.body(await readCollection(tx, query, { ...ctx, nextLink }), 200, { "Content-Type": JSON_TYPE });
            }
          }
        },
        { readOnly: true },
      );
    })
    .post("/*", async (c) => {
      const { path, options } = parse(c);
      if (path.kind === "method")
        throw new ServiceError(501, "MethodNotImplemented", "Custom methods are not available yet.");
      if (path.kind !== "collection")
        throw new ServiceError(405, "MethodNotAllowed", "POST creates records on an entity set: POST /api/{Entity}.");
      const entity = resolveEntity(model, path.entity);
      if (!canWrite(c.get("principal"))) throw forbidden();
      const query = bindQuery(model, entity, options, { limits: settings.queryLimits });
      const body = await readJsonBody(c.req.raw, settings.bodyLimits);
      const ctx = readContext(c);
      const result = await inTenant(db, ctx.tenantId, async (tx) => {
        const guid = await createRecord({ session: tx, model, tenantId: ctx.tenantId, options: ctx }, entity, body);
        return { guid, body: wantsMinimal(c) ? undefined : await readSingle(tx, query, guid, ctx) };
      });
      c.header("Location", `/api/${entity.name}(${result.guid})`);
      if (result.body === undefined) {
        c.header("Preference-Applied", "return=minimal");
        return c.body(null, 204);
      }
      return c.body(result.body, 201, { "Content-Type": JSON_TYPE });
    })
    .patch("/*", async (c) => {
      const { path, options } = parse(c);
      if (path.kind !== "entity")
        throw new ServiceError(405, "MethodNotAllowed", "PATCH updates one record: PATCH /api/{Entity}({guid}).");
      const entity = resolveEntity(model, path.entity);
      if (!canWrite(c.get("principal"))) throw forbidden();
      const guid = keyOf(path.key);
      const query = bindQuery(model, entity, options, { limits: settings.queryLimits });
      const body = await readJsonBody(c.req.raw, settings.bodyLimits);
      const ctx = readContext(c);
      const result = await inTenant(db, ctx.tenantId, async (tx) => {
        await updateRecord({ session: tx, model, tenantId: ctx.tenantId, options: ctx }, entity, guid, body);
        return wantsMinimal(c) ? undefined : await readSingle(tx, query, guid, ctx);
      });
      if (result === undefined) {
        c.header("Preference-Applied", "return=minimal");
        return c.body(null, 204);
      }
      return c.body(result, 200, { "Content-Type": JSON_TYPE });
    })
    .delete("/*", async (c) => {
      const { path } = parse(c);
      if (path.kind !== "entity")
        throw new ServiceError(405, "MethodNotAllowed", "DELETE removes one record: DELETE /api/{Entity}({guid}).");
      const entity = resolveEntity(model, path.entity);
      if (!canWrite(c.get("principal"))) throw forbidden();
      const guid = keyOf(path.key);
      const tenantId = c.get("principal").tenantId;
      await inTenant(db, tenantId, (tx) => deleteRecord({ session: tx, model, tenantId }, entity, guid));
      return c.body(null, 204);
    });
}
