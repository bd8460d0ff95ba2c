/**
 * CRUD on every entity of the model with no per-entity wiring (spec 4.2, api-conventions: Reads
 * and Writes), and method calls on them. Reads go through the planner (parse → bind → one
 * statement, cached by shape); writes through core's write pipeline; each request in one tenant
 * transaction, or in the transaction of the scope it runs in (a changeset, a workflow step).
 */
import {
  createRecord,
  deleteRecord,
  notFound,
  ServiceError,
  type Session,
  updateRecord,
  type WriteContext,
} from "@bizdata/core";
import { keyOf, resolveEntity } from "../read/read-planner.js";
import { runCollection, runCount, runSingle } from "../read/run-read.js";
import { parseResourcePath } from "../syntax/parse-resource-path.js";
import { callMethod } from "./method-call.js";
import type { ODataRequest } from "./odata-request.js";
import {
  guidOnlyBody,
  isGuidOnly,
  jsonResult,
  minimalResult,
  nextLinkOf,
  noContent,
  type ODataResult,
  recordUrl,
  textResult,
  withPrompts,
} from "./odata-result.js";
import { currentScope, inRequestTransaction, requestPrompts } from "./request-scope.js";
import { type ServiceContext, stagedArgs } from "./service-context.js";
import { tenantInfo } from "./tenant-info.js";

// any Guid: planning the response shape before the write checks $select/$expand before anything is stored
const ANY_KEY = "00000000-0000-0000-0000-000000000000";

const staged = () => currentScope()?.workflowId !== undefined;

/** the prepared read that shapes a write's response body */
function shapeOf(service: ServiceContext, entity: string, request: ODataRequest) {
  const planned = service.planner.plan({
    path: `${entity}(${ANY_KEY})`,
    search: request.search,
    ieee754Compatible: request.ieee754Compatible ?? false,
    staged: staged(),
  });
  if (planned.kind !== "entity") throw new Error("a keyed path plans as an entity read");
  return planned.prepared;
}

/** what a write needs: its context (tenant features, a scope's lookups) and where its prompts go */
async function writing(service: ServiceContext, tx: Session, request: ODataRequest) {
  // in a workflow questions wait for the user; on a plain request they take their default
  const prompts = requestPrompts(tx, request.tenantId);
  const tenant = await tenantInfo(tx, request.tenantId);
  const references = currentScope()?.references;
  const ctx: WriteContext = {
    session: tx,
    model: service.model,
    tenant,
    prompts,
    options: { ieee754Compatible: request.ieee754Compatible ?? false },
    ...(references && { references }),
  };
  return { ctx, prompts };
}

/** the request's JSON body; a write without one is refused as readJsonBody refuses a missing Content-Type */
const bodyOf = (request: ODataRequest): Promise<unknown> => {
  if (request.body === undefined) {
    throw new ServiceError(
      415,
      "UnsupportedMediaType",
      "The request body must be sent as application/json in UTF-8.",
      "Content-Type",
    );
  }
  return request.body();
};

/** `GET`: a collection, its `$count`, one record, or a Read method's result */
export async function readEntities(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const read = service.planner.plan({
    path: request.path,
    search: request.search,
    ieee754Compatible: request.ieee754Compatible ?? false,
    staged: staged(),
  });
  if (read.kind === "method") return callMethod(service, request, read);
  request.authorize?.({ kind: "read", entities: read.reads });
  const workflow = stagedArgs();
  const body = await inRequestTransaction<string | number | undefined>(
    service.db,
    tenantId,
    (tx) => {
      switch (read.kind) {
        case "collection": {
          const nextLink = nextLinkOf(service.basePath, read.entity.name, request.search);
          return runCollection(tx, read.prepared, { tenantId, nextLink, ...workflow });
        }
        case "count":
          return runCount(tx, read.prepared, { tenantId, ...workflow });
        case "entity":
          return runSingle(tx, read.prepared, { tenantId, key: read.key, ...workflow });
      }
    },
    // a read is one statement (architecture): BEGIN, tenant set-up, statement and COMMIT in one round trip
    { readOnly: true, oneStatement: true },
  );
  if (read.kind === "count") return textResult(String(body));
  if (body === undefined)
    throw notFound(`${read.entity.name}(${read.kind === "entity" ? read.key : ""}) does not exist.`);
  return jsonResult(200, String(body));
}

/** `POST`: creates a record on an entity set, or calls a Modify method */
export async function createEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const path = parseResourcePath(request.path);
  if (path.kind === "method") return callMethod(service, request, path);
  if (path.kind !== "collection") {
    throw new ServiceError(
      405,
      "MethodNotAllowed",
      `POST creates records on an entity set: POST ${service.basePath}/{Entity}.`,
    );
  }
  const entity = resolveEntity(service.model, path.entity);
  request.authorize?.({ kind: "create", entity: entity.name });
  const shape = shapeOf(service, entity.name, request);
  const body = await bodyOf(request);
  const result = await inRequestTransaction(service.db, tenantId, async (tx) => {
    const { ctx, prompts } = await writing(service, tx, request);
    const guid = await createRecord(ctx, entity, body);
    // without $select/$expand/$compute the body is the Guid alone: no need to read it back
    const response = request.returnMinimal
      ? undefined
      : isGuidOnly(request.search)
        ? guidOnlyBody(guid)
        : await runSingle(tx, shape, { tenantId, key: guid, ...stagedArgs() });
    return { guid, body: withPrompts(response, prompts.envelope()) };
  });
  const location = { Location: recordUrl(service.basePath, entity.name, result.guid) };
  return result.body === undefined ? minimalResult(location) : jsonResult(201, result.body, location);
}

/** the record a PATCH or DELETE names, once the caller may change it */
function recordOf(service: ServiceContext, request: ODataRequest, action: "update" | "delete") {
  const path = parseResourcePath(request.path);
  if (path.kind !== "entity") {
    const what = action === "update" ? "PATCH updates" : "DELETE removes";
    throw new ServiceError(
      405,
      "MethodNotAllowed",
      `${what} one record: ${request.method} ${service.basePath}/{Entity}({guid}).`,
    );
  }
  const entity = resolveEntity(service.model, path.entity);
  request.authorize?.({ kind: action, entity: entity.name });
  return { entity, guid: keyOf(path.key) };
}

/** `PATCH`: updates one record */
export async function updateEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const { entity, guid } = recordOf(service, request, "update");
  const shape = shapeOf(service, entity.name, request);
  const body = await bodyOf(request);
  const result = await inRequestTransaction(service.db, tenantId, async (tx) => {
    const { ctx, prompts } = await writing(service, tx, request);
    await updateRecord(ctx, entity, guid, body);
    const response = request.returnMinimal
      ? undefined
      : await runSingle(tx, shape, { tenantId, key: guid, ...stagedArgs() });
    return withPrompts(response, prompts.envelope());
  });
  return result === undefined ? minimalResult() : jsonResult(200, result);
}

/** `DELETE`: removes one record */
export async function deleteEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const { entity, guid } = recordOf(service, request, "delete");
  const references = currentScope()?.references;
  await inRequestTransaction(service.db, tenantId, (tx) =>
    deleteRecord(
      { session: tx, tenant: { id: tenantId, features: new Set() }, ...(references && { references }) },
      entity,
      guid,
    ),
  );
  return noContent();
}
