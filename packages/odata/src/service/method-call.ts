/**
 * The four method endpoint forms (spec 4.8): `GET {Entity}({id})/{Name}()` and
 * `GET {Entity}/{Name}()` with parameters in the query string (or inline), `POST
 * {Entity}({id})/{Name}` and `POST {Entity}/{Name}` with a JSON body or query-string
 * parameters. Read methods run in a read-only transaction; a method returning entities is read
 * back through the query compiler, so `$select`, `$expand` and `$filter` apply.
 */
import {
  inUnit,
  invokeMethod,
  isGuid,
  loadRecords,
  type MethodEnvironment,
  type Model,
  type RequestPrompts,
  resolveMethod,
  ServiceError,
  type Session,
  type UnitOfWork,
  unitPrompts,
  type WriteLimits,
} from "@bizdata/core";
import { type MethodPath, resolveEntity } from "../bind/bind-resource-path.js";
import { checkWrite, preconditionsOf } from "../conditional/preconditions.js";
import { resultType } from "../metadata/operation-results.js";
import { checkOwners, ownerReads, planOwnerChecks } from "../read/owner-checks.js";
import type { ReadPlanner } from "../read/read-planner.js";
import { runCollection, runSingle } from "../read/run-read.js";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { printExpr } from "../syntax/print-expr.js";
import type { ODataRequest } from "./odata-request.js";
import { etagHeader, noContent, type ODataResult, type PayloadControl, payloadResult } from "./odata-result.js";
import { type ServiceContext, storeOf, writeOptions } from "./service-context.js";
import { tenantInfo } from "./tenant-info.js";

/**
 * What a method call needs around it: tenant features, prompts (kept by a workflow, which also
 * defers AskUser bodies until the answer), its unit's shared lookups, and `query` over the state
 * the call sees (`tx.store`: a workflow's staged state inside one).
 */
export async function methodEnvironment(
  tx: Session,
  model: Model,
  planner: ReadPlanner,
  tenantId: string,
  ieee754Compatible: boolean,
  around: {
    /** the unit of work the call runs in, if it was given one */
    readonly unit?: UnitOfWork | undefined;
    /** bounds on what the method's writes may hold */
    readonly limits?: WriteLimits | undefined;
  } = {},
): Promise<{ env: MethodEnvironment; prompts: RequestPrompts }> {
  const { unit } = around;
  const prompts = unitPrompts(unit);
  const tenant = await tenantInfo(tx, tenantId);
  const query = async (
    entityName: string,
    filter: string,
    more: { orderby?: string; top?: number },
    args: Readonly<Record<string, unknown>>,
  ) => {
    const target = resolveEntity(model, entityName);
    const search = new URLSearchParams({ $filter: filter, $select: "Guid" });
    if (more.orderby) search.set("$orderby", more.orderby);
    if (more.top !== undefined) search.set("$top", String(more.top));
    // `@name` is the argument `name`, bound as a statement parameter typed against what it is
    // compared with: never spliced into the filter's text, so no value can change its meaning
    const read = planner.plan({
      path: entityName,
      search,
      ieee754Compatible: false,
      store: tx.store,
      paged: false,
      aliases: new Map(Object.entries(args)),
    });
    if (read.kind !== "collection") throw new Error("a filter reads a collection");
    const found = await runCollection(tx, read.prepared, { tenantId });
    const guids = (JSON.parse(found) as { value: { Guid: string }[] }).value.map((r) => r.Guid);
    const records = await loadRecords(tx, target, tenantId, guids);
    const byGuid = new Map(records.map((r) => [r.Guid, r]));
    return guids.map((g) => byGuid.get(g)!);
  };
  const defer = prompts.defer?.bind(prompts);
  const env: MethodEnvironment = {
    session: tx,
    model,
    tenant,
    prompts,
    options: { ieee754Compatible },
    ...(unit && { cache: unit.cache }),
    ...(around.limits && { limits: around.limits }),
    ...(defer && { defer }),
    query,
  };
  return { env, prompts };
}

/**
 * Whether the query parameter `name` of a method call is one of its arguments (OData 4.01
 * `nameAndValue`): a declared parameter is; system query options (`$` optional, OData 4.01) and
 * parameter aliases shape the result; anything else is an argument the method rejects by name.
 *
 * @example isMethodArgument({ customerId: … }, "$select") // false
 */
export const isMethodArgument = (params: object, name: string): boolean =>
  Object.hasOwn(params, name) || (systemQueryOption(name) === undefined && !name.startsWith("@"));

/** calls the method a path names and answers with its outcome (`@userprompts` included) */
export async function callMethod(
  service: ServiceContext,
  request: ODataRequest,
  path: MethodPath,
): Promise<ODataResult> {
  const { model, planner, db } = service;
  const { tenantId } = request;
  const verb = request.method === "GET" ? "GET" : "POST";
  const entity = resolveEntity(model, path.entity);
  const declared = Object.hasOwn(entity.methods, path.method) ? entity.methods[path.method] : undefined;
  if (declared) request.authorize?.({ kind: "call", entity: entity.name, method: path.method, type: declared.type });
  const declaration = resolveMethod(entity, path.method, path.key === null);
  // a Read method is an OData function (GET), a Modify method an action (POST)
  if (verb !== (declaration.type === "read" ? "GET" : "POST")) {
    throw new ServiceError(
      "MethodNotAllowed",
      `${entity.name}.${path.method} is a ${declaration.type === "read" ? "Read method: use GET with ()" : "Modify method: use POST"}.`,
      path.method,
    );
  }
  // spec 4.8 rule 4: a Read method without parameters needs its `()`. One with parameters may go
  // without them, its arguments in the query string (OData 4.01 implicit parameter aliases,
  // `boundFunctionCallNoParens`): the form the OASIS OpenAPI converter writes for a function with
  // an optional parameter
  if (verb === "GET" && !path.parens && Object.keys(declaration.params).length === 0) {
    throw new ServiceError(
      "InvalidMethodCall",
      `Call a Read method without parameters with parentheses: ${path.entity}…/${path.method}().`,
    );
  }
  const ieee754Compatible = request.ieee754Compatible ?? false;
  // arguments: inline `Name(a=1)`, then the query string, then (POST) the JSON body
  const isArgument = (name: string) => isMethodArgument(declaration.params, name);
  const given: Record<string, unknown> = {};
  for (const [name, l] of Object.entries(path.inlineArgs)) given[name] = printExpr(l);
  for (const [name, value] of request.search) if (isArgument(name)) given[name] = value;
  let fromBody: Record<string, unknown> | undefined;
  if (verb === "POST" && request.body !== undefined) {
    const body = await request.body();
    if (body !== null && (typeof body !== "object" || Array.isArray(body))) {
      throw new ServiceError("InvalidBody", "The parameters of a method call are a JSON object.");
    }
    fromBody = (body ?? {}) as Record<string, unknown>;
  }
  const key = path.key === null ? null : path.key.toLowerCase();
  // inside a workflow the method reads (and its writes stage) the workflow's state
  const store = storeOf(service);
  // query-string options shape a returned entity or collection
  const options = new URLSearchParams([...request.search].filter(([name]) => !isArgument(name)));

  const metadata = request.metadata ?? "minimal";
  // a Modify method bound to a record changes it: If-Match holds it to the version the client saw
  const conditions = declaration.type === "modify" && key !== null ? preconditionsOf(request) : {};
  // a method of an owned item named under its owner runs once the owner is found to hold it
  const owners = planOwnerChecks(path.owners, store);
  if (owners.length > 0) request.authorize?.({ kind: "read", entities: ownerReads(owners) });

  const run = async (tx: Session): Promise<ODataResult> => {
    await checkOwners(tx, owners, { tenantId });
    if (key !== null) await checkWrite(tx, service.model, entity, tenantId, key, conditions);
    const { env, prompts } = await methodEnvironment(tx, model, planner, tenantId, ieee754Compatible, {
      unit: service.unit,
      limits: service.writeLimits,
    });
    const outcome = await invokeMethod(
      env,
      {
        entity,
        name: path.method,
        key,
        args: fromBody ? { ...given, ...fromBody } : given,
        argsAsText: fromBody === undefined,
      },
      declaration,
    );
    const answer = (
      status: number,
      body?: string,
      control: Omit<PayloadControl, "prompts"> = {},
      headers: Record<string, string> = {},
    ): ODataResult =>
      body === undefined
        ? noContent()
        : payloadResult(service, request, status, body, { ...control, prompts: prompts.envelope() }, headers);
    if (outcome.status === "aborted") return answer(outcome.error.status, JSON.stringify(outcome.error.toJSON()));
    if (outcome.status === "deferred") {
      const message = `${entity.name}.${path.method} waits for the answer to a question.`;
      return answer(200, JSON.stringify({ message }));
    }
    const returns = declaration.returns;
    switch (returns.kind) {
      case "none":
        return answer(204);
      case "scalar": {
        const value = outcome.value === undefined ? "null" : JSON.stringify(outcome.value);
        const type = resultType(model, entity.name, path.method);
        return answer(200, `{"value":${value}}`, type === undefined ? {} : { context: type });
      }
      case "entity": {
        if (outcome.value === null || outcome.value === undefined) return answer(204);
        const read = planner.plan({
          path: `${returns.entity}(${outcome.value})`,
          search: options,
          ieee754Compatible,
          store,
          metadata,
        });
        if (read.kind !== "entity") throw new Error("a keyed path reads an entity");
        const record = await runSingle(tx, read.prepared, { tenantId, key: read.key });
        if (record === undefined) return answer(204);
        return answer(200, record.body, { context: read.context }, etagHeader(record.version));
      }
      case "collection": {
        const keys = (outcome.value as readonly string[] | undefined) ?? [];

        const wrong = keys.find((k) => !isGuid(k));
        if (wrong !== undefined)
          throw new Error(`${entity.name}.${path.method} returned ${JSON.stringify(wrong)}, which is not a Guid.`);
        // the client's read ($select, $expand, $filter, $orderby) of the method's records: the
        // keys are one array parameter, and every one of them comes back (no server page)
        const read = planner.plan({
          path: returns.entity,
          search: options,
          ieee754Compatible,
          store,
          paged: false,
          keys: true,
          metadata,
        });
        if (read.kind !== "collection") throw new Error("an entity set reads a collection");
        const context = { context: read.context };
        if (keys.length === 0) return answer(200, '{"value":[]}', context);
        return answer(200, await runCollection(tx, read.prepared, { tenantId, keys }), context);
      }
    }
  };
  return declaration.type === "read"
    ? inUnit(db, tenantId, service.unit, run, { readOnly: true })
    : inUnit(db, tenantId, service.unit, run, writeOptions(service, request));
}
