/**
 * CRUD on every entity of the model with no per-entity wiring (spec 4.2, api-conventions: Reads
 * and Writes), and method calls on them. Reads go through the planner (parse → bind → one
 * statement, cached by shape); writes through core's write pipeline; each request in one tenant
 * transaction, or in that of the unit of work it was given (a changeset, a workflow step).
 * A single record's answers carry its ETag, and `If-Match`/`If-None-Match` are checked against
 * it (conditional/preconditions.ts). An owned item named under its owner (`SalesOrder(…)/
 * Details(…)`) is read, updated and deleted as at its own address, once the owner is found to
 * hold it (read/owner-checks.ts); a POST to the owner's collection (`SalesOrder(…)/Details`)
 * creates an item of that owner. Wherever it is addressed, core writes an item as a deep write of
 * its owner (createRecord, updateRecord, deleteRecord), so the owner's logic runs on it.
 * `Prefer: return=representation` answers with every property (`$select=*`) unless `$select`
 * or `$expand` say what, `return=minimal` with no body (OData 4.01 §8.2.8.7).
 */
import {
  type AnyEntity,
  createRecord,
  deleteRecord,
  FIRST_VERSION,
  inUnit,
  notFound,
  recordVersion,
  ServiceError,
  type Session,
  unitPrompts,
  updateRecord,
  type WriteContext,
} from "@bizdata/core";
import { checkWrite, evaluate, preconditionsOf } from "../conditional/preconditions.js";
import { emptyBody } from "../json-body/parse-json.js";
import { checkOwners, ownerReads, planOwnerChecks } from "../read/owner-checks.js";
import { resolveResource } from "../read/read-planner.js";
import {
  runCollection,
  runContained,
  runContainedCount,
  runCount,
  runRelated,
  runSingle,
  type SingleRecord,
} from "../read/run-read.js";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { checkAnswerSize } from "./answer-size.js";
import { callMethod } from "./method-call.js";
import type { ODataRequest } from "./odata-request.js";
import {
  etagHeader,
  minimalResult,
  nextLinkOf,
  noContent,
  notModified,
  type ODataResult,
  type PayloadControl,
  payloadResult,
  recordUrl,
  textResult,
} from "./odata-result.js";
import { ownerGuid, ownerRead, withOwner } from "./owner-collection.js";
import { historyOf, readRecordHistory } from "./record-history.js";
import { type ServiceContext, storeOf, writeOptions } from "./service-context.js";
import { tenantInfo } from "./tenant-info.js";
import { readTracked, trackingOf } from "./track-changes.js";

// any Guid: planning the response shape before the write checks $select/$expand before anything is stored
const ANY_KEY = "00000000-0000-0000-0000-000000000000";

/** the shaping options that put more than the Guid into an answer */
const SHAPING = new Set(["$select", "$expand", "$compute"]);

const names = (search: URLSearchParams) => new Set([...search.keys()].map((name) => systemQueryOption(name)));

/**
 * The options that shape a write's answer: the request's, and for `return=representation`
 * without a `$select` every property (`$select=*`) beside what `$expand` adds
 */
function shapingOf(request: ODataRequest): URLSearchParams {
  if (request.returnPreference !== "representation" || names(request.search).has("$select")) return request.search;
  const search = new URLSearchParams(request.search);
  search.set("$select", "*");
  return search;
}

/** whether the answer to a write is the Guid alone (spec 2.1: the default projection) */
const guidOnly = (search: URLSearchParams) => ![...names(search)].some((name) => SHAPING.has(name ?? ""));

/** the prepared read that shapes a write's response body, its context URL, and the options it was planned for */
function shapeOf(service: ServiceContext, entity: string, request: ODataRequest) {
  const search = shapingOf(request);
  const planned = service.planner.plan({
    path: `${entity}(${ANY_KEY})`,
    search,
    ieee754Compatible: request.ieee754Compatible ?? false,
    store: storeOf(service),
    metadata: request.metadata ?? "minimal",
  });
  if (planned.kind !== "entity") throw new Error("a keyed path plans as an entity read");
  return { ...planned, search };
}

/** what a write needs: its context (tenant features, its unit's lookups) and where its prompts go */
async function writing(service: ServiceContext, tx: Session, request: ODataRequest) {
  // in a workflow questions wait for the user; on a plain request they take their default
  const prompts = unitPrompts(service.unit);
  const tenant = await tenantInfo(tx, request.tenantId);
  const cache = service.unit?.cache;
  const ctx: WriteContext = {
    session: tx,
    model: service.model,
    tenant,
    prompts,
    options: { ieee754Compatible: request.ieee754Compatible ?? false },
    ...(cache && { cache }),
    ...(service.writeLimits && { limits: service.writeLimits }),
  };
  return { ctx, prompts };
}

/** the request's JSON body; a write without one is refused as readJsonBody refuses a missing Content-Type */
const bodyOf = (request: ODataRequest): Promise<unknown> => {
  if (request.emptyBody) throw emptyBody();
  if (request.body === undefined) {
    throw new ServiceError(
      "UnsupportedMediaType",
      "The request body must be sent as application/json in UTF-8.",
      "Content-Type",
    );
  }
  return request.body();
};

/**
 * A written record as the answer shows it: its body shaped by `$select`/`$expand` (the Guid
 * alone without them, every property for `return=representation`), or with `return=minimal` no
 * body; its version for the ETag either way. A record that cannot be read back — a virtual
 * entity's, which its `save` turned into others on a plain request — answers with its Guid
 * alone, without an ETag or a context, and without saying `return=representation` was applied.
 */
async function written(
  tx: Session,
  request: ODataRequest,
  entity: AnyEntity,
  guid: string,
  shape: ReturnType<typeof shapeOf>,
  fresh = false,
): Promise<{ body?: string; version?: string; context?: string; represented?: boolean }> {
  const { tenantId } = request;
  const { guidAlias, versionAlias } = shape.prepared;
  const minimal = request.returnPreference === "minimal";
  const fromBase = entity.storage === undefined && tx.store.view === undefined;
  if (fresh && fromBase && versionAlias !== undefined && guidOnly(shape.search)) {
    // a record this request just created in the base tables is at its first version, and the
    // answer holds its Guid alone: written without reading it back, so that the insert can wait
    // (write-behind.ts) and the creates of a changeset go out in one statement per table
    const version = String(FIRST_VERSION);
    if (minimal) return { version };
    return {
      body: shape.prepared.write({ [guidAlias]: guid, [versionAlias]: version }),
      version,
      context: shape.context,
    };
  }
  if (minimal) {
    const version = await recordVersion(tx, entity, tenantId, guid);
    return version === undefined ? {} : { version };
  }
  const record = await runSingle(tx, shape.prepared, { tenantId, key: guid });
  if (record === undefined) return { body: JSON.stringify({ Guid: guid }) };
  return { ...record, context: shape.context, represented: request.returnPreference === "representation" };
}

/**
 * The answer to a write: 204 with `return=minimal` (a create's with `OData-EntityId`, OData 4.01
 * §8.3.4), else its body with its context and prompts, saying `return=representation` was applied
 */
function writeResult(
  service: ServiceContext,
  request: ODataRequest,
  status: number,
  result: Awaited<ReturnType<typeof written>> & { readonly prompts: PayloadControl["prompts"] },
  created?: string,
): ODataResult {
  const all = {
    ...(created !== undefined && { Location: created }),
    ...(result.version !== undefined && etagHeader(result.version)),
  };
  if (result.body === undefined)
    return minimalResult({ ...all, ...(created !== undefined && { "OData-EntityId": created }) });
  const control = { ...(result.context !== undefined && { context: result.context }), prompts: result.prompts };
  const applied = result.represented ? { "Preference-Applied": "return=representation" } : {};
  return payloadResult(service, request, status, result.body, control, { ...all, ...applied });
}

/** `GET`: a collection, its `$count`, one record, or a Read method's result; a tracked one (track-changes.ts) */
export async function readEntities(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const history = historyOf(request.path);
  if (history !== undefined) return readRecordHistory(service, request, history);
  const tracking = trackingOf(service, request);
  const read = service.planner.plan({
    path: request.path,
    search: tracking?.search ?? request.search,
    ieee754Compatible: request.ieee754Compatible ?? false,
    store: storeOf(service),
    metadata: request.metadata ?? "minimal",
  });
  if (read.kind === "method") return callMethod(service, request, read);
  if (tracking !== undefined) {
    const tracked = await readTracked(service, request, tracking, read);
    if (tracked !== undefined) return tracked;
  }
  request.authorize?.({ kind: "read", entities: read.reads });
  const args = { tenantId, ...(read.key !== undefined && { key: read.key }) };
  // a collection (or a navigation's target) has no ETag of its own: its conditions are not evaluated (nor parsed)
  const conditions = read.kind === "entity" && !read.related ? preconditionsOf(request) : {};
  type Read =
    | { readonly body: string | null | undefined }
    | { readonly count: number | undefined }
    | { readonly record: SingleRecord | undefined };
  const result = await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      await checkOwners(tx, read.owners ?? [], args);
      switch (read.kind) {
        case "collection": {
          const nextLink = nextLinkOf(service.basePath, request.path, request);
          const body =
            read.key === undefined
              ? await runCollection(tx, read.prepared, { ...args, nextLink })
              : await runContained(tx, read.prepared, { ...args, nextLink });
          return { body } as Read;
        }
        case "count": {
          const count =
            read.key === undefined
              ? await runCount(tx, read.prepared, args)
              : await runContainedCount(tx, read.prepared, args);
          return { count } as Read;
        }
        case "entity":
          return read.related
            ? ({ body: await runRelated(tx, read.prepared, args) } as Read)
            : ({ record: await runSingle(tx, read.prepared, args) } as Read);
        case "complex":
          return { body: await runRelated(tx, read.prepared, args) } as Read;
      }
    },
    // a read is one statement (architecture), which on PostgreSQL goes alone on a session set for
    // the tenant; an item named under its owners checks them first, a statement of its own
    { readOnly: true, oneStatement: (read.owners ?? []).length === 0 },
  );
  // a navigation from a record that does not exist, or the record itself
  const missing = () => notFound(`${read.root.name}(${read.key ?? ""}) does not exist.`);
  if ("count" in result) {
    if (result.count === undefined) throw missing();
    return textResult(String(result.count));
  }
  if ("body" in result) {
    if (result.body === undefined) throw missing();
    // a reference that leads nowhere (OData 4.01 §11.2.6)
    if (result.body === null) return noContent();
    checkAnswerSize(result.body, service.planner.limits.maxAnswerBytes);
    return payloadResult(service, request, 200, result.body, { context: read.context });
  }
  if (result.record === undefined) throw missing();
  const { body, version } = result.record;
  if (evaluate(conditions, `${read.entity.name}(${read.key})`, version, true) === "notModified")
    return notModified(version);
  checkAnswerSize(body, service.planner.limits.maxAnswerBytes);
  return payloadResult(service, request, 200, body, { context: read.context }, etagHeader(version));
}

/**
 * `POST`: creates a record on an entity set, or an item in its owner's collection
 * (`SalesOrder(…)/Details`, OData 4.01 §11.4.2: the new entity is related to the one the path
 * names), or calls a Modify method
 */
export async function createEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const path = service.planner.resolve(request.path);
  if (path.kind === "method") return callMethod(service, request, path);
  if (path.kind !== "collection" && (path.kind !== "contained" || path.count)) {
    throw new ServiceError(
      "MethodNotAllowed",
      `POST creates records on an entity set or an owned collection: POST ${service.basePath}/{Entity} or ${service.basePath}/{Entity}({guid})/{Collection}.`,
    );
  }
  const { entity } = path;
  request.authorize?.({ kind: "create", entity: entity.name });
  const owner = path.kind === "contained" ? ownerRead(service, request) : undefined;
  if (owner !== undefined) request.authorize?.({ kind: "read", entities: owner.reads });
  const shape = shapeOf(service, entity.name, request);
  const body = await bodyOf(request);
  const result = await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      const { ctx, prompts } = await writing(service, tx, request);
      const inverse = service.model.owner(entity.name)?.inverse;
      const given =
        owner === undefined || inverse === undefined
          ? body
          : withOwner(body, inverse, await ownerGuid(tx, owner, tenantId));
      const guid = await createRecord(ctx, entity, given);
      return { guid, ...(await written(tx, request, entity, guid, shape, true)), prompts: prompts.envelope() };
    },
    writeOptions(service, request),
  );
  return writeResult(service, request, 201, result, recordUrl(service.basePath, entity.name, result.guid));
}

/**
 * The record a PATCH or DELETE names, once the caller may change it, and the checks that its
 * owners hold it when it is named under them (which read them)
 */
function recordOf(service: ServiceContext, request: ODataRequest, action: "update" | "delete") {
  const path = resolveResource(service.model, request.path);
  if (path.kind !== "entity") {
    const what = action === "update" ? "PATCH updates" : "DELETE removes";
    throw new ServiceError(
      "MethodNotAllowed",
      `${what} one record: ${request.method} ${service.basePath}/{Entity}({guid}).`,
    );
  }
  request.authorize?.({ kind: action, entity: path.entity.name });
  const owners = planOwnerChecks(path.owners, storeOf(service));
  if (owners.length > 0) request.authorize?.({ kind: "read", entities: ownerReads(owners) });
  return { entity: path.entity, guid: path.key, owners };
}

/** `PATCH`: updates one record, when its version is one `If-Match` names (if sent) */
export async function updateEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const { entity, guid, owners } = recordOf(service, request, "update");
  const conditions = preconditionsOf(request);
  const shape = shapeOf(service, entity.name, request);
  const body = await bodyOf(request);
  const result = await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      await checkOwners(tx, owners, { tenantId });
      await checkWrite(tx, service.model, entity, tenantId, guid, conditions);
      const { ctx, prompts } = await writing(service, tx, request);
      await updateRecord(ctx, entity, guid, body);
      return { ...(await written(tx, request, entity, guid, shape)), prompts: prompts.envelope() };
    },
    writeOptions(service, request),
  );
  return writeResult(service, request, 200, result);
}

/** `DELETE`: removes one record, when its version is one `If-Match` names (if sent) */
export async function deleteEntity(service: ServiceContext, request: ODataRequest): Promise<ODataResult> {
  const { tenantId } = request;
  const { entity, guid, owners } = recordOf(service, request, "delete");
  const conditions = preconditionsOf(request);
  await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      await checkOwners(tx, owners, { tenantId });
      await checkWrite(tx, service.model, entity, tenantId, guid, conditions);
      // an owned item goes as a write of its owner, whose logic runs (core's deleteRecord)
      await deleteRecord((await writing(service, tx, request)).ctx, entity, guid);
    },
    writeOptions(service, request),
  );
  return noContent();
}
