/**
 * The reading tools: a query of an entity set, a read by key or natural key, and a call of a Read
 * method, each one GET through the API (inside a workflow when the agent names one). Results
 * are cut at the row limit and say when there is more.
 */
import { isGuid, odataString } from "@bizdata/core";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { type ApiAnswer, ApiFailure } from "./api-calls.js";
import type { ToolAction } from "./model-tools.js";
import { guidOf, naturalKeyOf, naturalKeySearch, onlyRecord } from "./record-keys.js";
import { read, type ToolContext } from "./tool-context.js";
import { messages, success } from "./tool-results.js";

export type Args = Readonly<Record<string, unknown>>;

const OPTION_NAMES = ["filter", "select", "expand", "orderby", "apply", "compute"] as const;

/** the system query options a tool's arguments give (`filter` → `$filter`, …) */
export function queryOptions(args: Args, names: readonly string[] = OPTION_NAMES): URLSearchParams {
  const search = new URLSearchParams();
  for (const name of names) {
    const value = args[name];
    if (typeof value === "string" && value !== "") search.set(`$${name}`, value);
  }
  return search;
}

const workflowOf = (args: Args) => args.workflowId as string | undefined;

/** rows up to the limit: one more is asked for, to tell whether there are more */
function page(ctx: ToolContext, args: Args, search: URLSearchParams) {
  const limit = (args.top as number | undefined) ?? ctx.rowLimit;
  const skip = (args.skip as number | undefined) ?? 0;
  search.set("$top", String(limit + 1));
  return (answer: ApiAnswer) => {
    const body = answer.body as { value: unknown[]; "@odata.count"?: number };
    const more = body.value.length > limit;
    return {
      value: body.value.slice(0, limit),
      ...(body["@odata.count"] !== undefined && { count: body["@odata.count"] }),
      ...(more && { more: true, nextSkip: skip + limit }),
    };
  };
}

const said = (answer: ApiAnswer) => {
  const list = messages(answer.prompts);
  return list.length > 0 ? { messages: list } : {};
};

export async function queryTool(ctx: ToolContext, entitySet: string, args: Args): Promise<CallToolResult> {
  const search = queryOptions(args);
  if (args.count === true) search.set("$count", "true");
  if (typeof args.skip === "number" && args.skip > 0) search.set("$skip", String(args.skip));
  const shape = page(ctx, args, search);
  const answer = await read(ctx, workflowOf(args), ctx.api.path(entitySet, search));
  return success({ ...shape(answer), ...said(answer) });
}

export async function getTool(ctx: ToolContext, entitySet: string, args: Args): Promise<CallToolResult> {
  const key = args.key as string;
  const options = queryOptions(args, ["select", "expand"]);
  const workflowId = workflowOf(args);
  if (isGuid(key)) {
    try {
      const answer = await read(ctx, workflowId, ctx.api.path(`${entitySet}(${key})`, options));
      return success({ value: answer.body, ...said(answer) });
    } catch (err) {
      // a Guid-shaped natural key is a Guid first (spec 4.3), then the natural key
      const byKey = naturalKeyOf(ctx.model, entitySet) !== "Guid";
      if (!(err instanceof ApiFailure && err.status === 404 && byKey)) throw err;
    }
  }
  const search = naturalKeySearch(ctx.model, entitySet, key);
  for (const [name, value] of options) search.set(name, value);
  const answer = await read(ctx, workflowId, ctx.api.path(entitySet, search));
  return success({ value: onlyRecord(ctx.model, entitySet, key, answer), ...said(answer) });
}

/** a method's arguments as query-string values (spec 4.8: a Read method is a GET): text quoted as an OData string */
export function methodArguments(args: Args, search = new URLSearchParams()): URLSearchParams {
  const parameters = (args.parameters ?? {}) as Readonly<Record<string, unknown>>;
  for (const [name, value] of Object.entries(parameters)) {
    if (value === null || value === undefined) continue;
    search.set(name, typeof value === "string" ? odataString(value) : String(value));
  }
  return search;
}

/** `{Entity}({guid})/{Method}` or `{Entity}/{Method}`: the record named by key or natural key */
export async function methodPath(
  ctx: ToolContext,
  action: Extract<ToolAction, { kind: "call" }>,
  key: unknown,
  readKey: (path: string) => Promise<ApiAnswer>,
): Promise<string> {
  if (action.isStatic) return `${action.entity}/${action.method}`;
  const guid = await guidOf(ctx.model, action.entity, key as string, (e, s) => ctx.api.path(e, s), readKey);
  return `${action.entity}(${guid})/${action.method}`;
}

/** what a method answered, by what it returns */
export function methodResult(
  action: Extract<ToolAction, { kind: "call" }>,
  answer: ApiAnswer,
  shape: ReturnType<typeof page> | undefined,
) {
  const body = answer.body as Record<string, unknown> | undefined;
  switch (action.returns) {
    case "none":
      return { value: null };
    case "scalar":
      return { value: body?.value ?? null };
    case "entity":
      return { value: body ?? null };
    case "collection":
      return shape === undefined ? { value: body?.value ?? [] } : shape(answer);
  }
}

export async function readMethodTool(
  ctx: ToolContext,
  action: Extract<ToolAction, { kind: "call" }>,
  args: Args,
): Promise<CallToolResult> {
  const workflowId = workflowOf(args);
  const path = await methodPath(ctx, action, args.key, (p) => read(ctx, workflowId, p));
  const search = methodArguments(args, queryOptions(args, ["select", "expand", "filter", "orderby"]));
  const shape = action.returns === "collection" ? page(ctx, args, search) : undefined;
  // a Read method is called with parentheses (spec 4.8 rule 4)
  const answer = await read(ctx, workflowId, ctx.api.path(`${path}()`, search));
  return success({ ...methodResult(action, answer, shape), ...said(answer) });
}
