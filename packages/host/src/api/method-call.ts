/**
 * The four method endpoint forms (spec 4.8): `GET /api/{Entity}({id})/{Name}()` and
 * `GET /api/{Entity}/{Name}()` with parameters in the query string (or inline), `POST
 * /api/{Entity}({id})/{Name}` and `POST /api/{Entity}/{Name}` with a JSON body or query-string
 * parameters. Read methods run in a read-only transaction; a method returning entities is read
 * back through the query compiler, so `$select`, `$expand` and `$filter` apply.
 */
import {
  type Database,
  invokeMethod,
  loadRecords,
  type MethodEnvironment,
  type Model,
  type PromptCollector,
  type PromptEnvelope,
  resolveMethod,
  ServiceError,
  type Session,
} from "@bizdata/core";
import {
  type Literal,
  printExpr,
  type ReadPlanner,
  type ResourcePath,
  resolveEntity,
  runCollection,
  runSingle,
} from "@bizdata/odata";
import { WorkflowPrompts } from "@bizdata/workflow";
import type { BodyLimits } from "../http/body-limits.js";
import { isIeee754Compatible, readJsonBody } from "../http/request-json.js";
import { changesetReferences, currentWorkflow, inRequestTransaction, requestPrompts } from "./request-transaction.js";
import { tenantInfo } from "./tenant-info.js";

type MethodPath = Extract<ResourcePath, { kind: "method" }>;

export interface MethodResponse {
  readonly status: number;
  readonly body?: string;
  readonly prompts?: PromptEnvelope;
}

/** an OData literal for a value, to put a method's argument into a `$filter` */
const literal = (value: unknown): string =>
  value === null || value === undefined
    ? "null"
    : typeof value === "string"
      ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
        ? value
        : `'${value.replaceAll("'", "''")}'`
      : String(value);

/** `@name` in a filter written by a method body, replaced by the literal of `args.name` */
const bindArguments = (filter: string, args: Readonly<Record<string, unknown>>) =>
  filter.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (all, name: string) =>
    Object.hasOwn(args, name) ? literal(args[name]) : all,
  );

const text = (l: Literal) => (l.kind === "string" ? `'${l.value.replaceAll("'", "''")}'` : printExpr(l));

/**
 * What a method call needs around it: tenant features, prompts (kept by a workflow, which also
 * defers AskUser bodies until the answer), a changeset's lookups, and `query` over the state the
 * call sees (a workflow's staged state inside one).
 */
export async function methodEnvironment(
  tx: Session,
  model: Model,
  planner: ReadPlanner,
  tenantId: string,
  ieee754Compatible: boolean,
): Promise<{ env: MethodEnvironment; prompts: PromptCollector }> {
  const workflowId = currentWorkflow();
  const staged = workflowId !== undefined;
  const prompts = requestPrompts(tx, tenantId);
  const tenant = await tenantInfo(tx, tenantId);
  const references = changesetReferences();
  const query = async (
    entityName: string,
    filter: string,
    more: { orderby?: string; top?: number },
    args: Readonly<Record<string, unknown>>,
  ) => {
    const target = resolveEntity(model, entityName);
    const search = new URLSearchParams({ $filter: bindArguments(filter, args), $select: "Guid" });
    if (more.orderby) search.set("$orderby", more.orderby);
    if (more.top !== undefined) search.set("$top", String(more.top));
    const read = planner.plan({ path: entityName, search, ieee754Compatible: false, cache: false, staged });
    if (read.kind !== "collection") throw new Error("a filter reads a collection");
    const found = await runCollection(tx, read.prepared, { tenantId, ...(workflowId && { workflowId }) });
    const guids = (JSON.parse(found) as { value: { Guid: string }[] }).value.map((r) => r.Guid);
    const records = await loadRecords(tx, target, tenantId, guids);
    const byGuid = new Map(records.map((r) => [r.Guid, r]));
    return guids.map((g) => byGuid.get(g)!);
  };
  const env: MethodEnvironment = {
    session: tx,
    model,
    tenant,
    prompts,
    options: { ieee754Compatible },
    ...(references && { references }),
    ...(prompts instanceof WorkflowPrompts && { defer: (question, call) => prompts.defer(question, call) }),
    query,
  };
  return { env, prompts };
}

export async function callMethod(
  db: Database,
  model: Model,
  planner: ReadPlanner,
  bodyLimits: BodyLimits,
  request: Request,
  path: MethodPath,
  tenantId: string,
): Promise<MethodResponse> {
  const verb = request.method === "GET" ? "GET" : "POST";
  const entity = resolveEntity(model, path.entity);
  const declaration = resolveMethod(entity, path.method, path.key === null, verb);
  if (verb === "GET" && !path.parens) {
    throw new ServiceError(
      400,
      "InvalidMethodCall",
      `Call a Read method with parentheses: ${path.entity}…/${path.method}().`,
    );
  }
  const url = new URL(request.url);
  const ieee754Compatible = isIeee754Compatible(request.headers);
  // arguments: inline `Name(a=1)`, then query-string names without `$`, then (POST) the JSON body
  const given: Record<string, unknown> = {};
  for (const [name, l] of Object.entries(path.inlineArgs)) given[name] = text(l);
  for (const [name, value] of url.searchParams) if (!name.startsWith("$")) given[name] = value;
  let fromBody: Record<string, unknown> | undefined;
  if (
    verb === "POST" &&
    request.headers.get("content-type") !== null &&
    request.headers.get("content-length") !== "0"
  ) {
    const body = await readJsonBody(request, bodyLimits);
    if (body !== null && (typeof body !== "object" || Array.isArray(body))) {
      throw new ServiceError(400, "InvalidBody", "The parameters of a method call are a JSON object.");
    }
    fromBody = (body ?? {}) as Record<string, unknown>;
  }
  const key = path.key === null ? null : path.key.toLowerCase();
  // inside a workflow the method reads (and its writes stage) the workflow's state
  const workflowId = currentWorkflow();
  const staged = workflowId !== undefined;
  const workflow = workflowId === undefined ? {} : { workflowId };
  // query-string options shape a returned entity or collection
  const options = new URLSearchParams([...url.searchParams].filter(([name]) => name.startsWith("$")));

  const run = async (tx: Session): Promise<MethodResponse> => {
    const { env, prompts } = await methodEnvironment(tx, model, planner, tenantId, ieee754Compatible);
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
    const envelope = prompts.envelope();
    if (outcome.status === "aborted") {
      return { status: 400, body: JSON.stringify(outcome.error.toJSON()), ...(envelope && { prompts: envelope }) };
    }
    if (outcome.status === "deferred") {
      const message = `${entity.name}.${path.method} waits for the answer to a question.`;
      return { status: 200, body: JSON.stringify({ message }), ...(envelope && { prompts: envelope }) };
    }
    const returns = declaration.returns;
    const answer = (status: number, body?: string): MethodResponse => ({
      status,
      ...(body !== undefined && { body }),
      ...(envelope && { prompts: envelope }),
    });
    switch (returns.kind) {
      case "none":
        return answer(204);
      case "scalar":
        return answer(200, `{"value":${outcome.value === undefined ? "null" : JSON.stringify(outcome.value)}}`);
      case "entity": {
        if (outcome.value === null || outcome.value === undefined) return answer(204);
        const read = planner.plan({
          path: `${returns.entity}(${outcome.value})`,
          search: options,
          ieee754Compatible,
          staged,
        });
        if (read.kind !== "entity") throw new Error("a keyed path reads an entity");
        return answer(200, await runSingle(tx, read.prepared, { tenantId, key: read.key, ...workflow }));
      }
      case "collection": {
        const guids = (outcome.value as readonly string[] | undefined) ?? [];
        if (guids.length === 0) return answer(200, '{"value":[]}');
        // the method's records, narrowed further by the client's own $filter
        const search = new URLSearchParams(options);
        const restrict = `Guid in (${guids.join(",")})`;
        const own = options.get("$filter");
        search.set("$filter", own ? `(${own}) and ${restrict}` : restrict);
        const read = planner.plan({ path: returns.entity, search, ieee754Compatible, cache: false, staged });
        if (read.kind !== "collection") throw new Error("an entity set reads a collection");
        return answer(200, await runCollection(tx, read.prepared, { tenantId, ...workflow }));
      }
    }
  };
  return declaration.type === "read"
    ? inRequestTransaction(db, tenantId, run, { readOnly: true })
    : inRequestTransaction(db, tenantId, run);
}
