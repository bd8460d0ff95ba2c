/**
 * `completion/complete`: suggestions for the arguments of the resource templates and the method
 * prompts, as a person types them — entity sets by name; records by natural-key prefix (read
 * through the API as the caller, ordered by the key, the prefix a parameter alias); enum members;
 * true and false; a records resource's properties, and the values of the one chosen (a
 * reference's by its target's natural key). At most 100 values (read ones: MCP_ROW_LIMIT), with
 * `total` and `hasMore`. An
 * argument that depends on another (a key on its entity set) takes it from `context.arguments`.
 * A reference, argument or entity set that is not there is a JSON-RPC error (-32602) naming it; a
 * record set the caller may not read completes to nothing.
 */
import { odataString, type ScalarField } from "@bizdata/core";
import {
  type CompleteRequest,
  type CompleteResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { ApiFailure } from "./api-calls.js";
import { methodToolOf, parametersOf } from "./method-prompts.js";
import { ENTITY_SET_TEMPLATE } from "./model-resources.js";
import type { ModelTool } from "./model-tools.js";
import { naturalKeyOf } from "./record-keys.js";
import { narrowingOf, narrowingProperties, RECORD_TEMPLATE, RECORDS_TEMPLATE } from "./record-resources.js";
import type { ToolContext } from "./tool-context.js";

/** most values in one answer (the MCP limit) */
const MAX_VALUES = 100;

export interface CompletionScope {
  readonly ctx: ToolContext;
  /** the entity sets of the tenant's model that the caller may read */
  readonly entitySets: readonly string[];
  /** the caller's method tools by name: the prompts */
  readonly methods: ReadonlyMap<string, ModelTool>;
}

type Params = CompleteRequest["params"];

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

const NOTHING: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

/** the values of `all` that start with `prefix`, whatever the case */
function fromList(all: readonly string[], prefix: string): CompleteResult {
  const lower = prefix.toLowerCase();
  const values = all.filter((v) => v.toLowerCase().startsWith(lower));
  return {
    completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES },
  };
}

export async function complete(scope: CompletionScope, params: Params): Promise<CompleteResult> {
  const { ref, argument } = params;
  const context = params.context?.arguments ?? {};
  if (ref.type === "ref/prompt") {
    const tool = methodToolOf(scope.methods, ref.name);
    if (tool === undefined) throw invalid(`There is no prompt ${ref.name}.`);
    if (argument.name === "key" && !tool.action.isStatic) return keys(scope, tool.action.entity, argument.value);
    const field = parametersOf(scope.ctx.model, tool.action)[argument.name];
    if (field === undefined) throw invalid(`The prompt ${ref.name} has no argument ${argument.name}.`);
    return scalarValues(field, argument.value);
  }
  const templates: Record<string, readonly string[]> = {
    [ENTITY_SET_TEMPLATE]: ["entitySet"],
    [RECORD_TEMPLATE]: ["entitySet", "key"],
    [RECORDS_TEMPLATE]: ["entitySet", "property", "value"],
  };
  const names = templates[ref.uri];
  if (names === undefined) throw invalid(`There is no resource template ${ref.uri}.`);
  if (!names.includes(argument.name)) throw invalid(`The template ${ref.uri} has no variable ${argument.name}.`);
  switch (argument.name) {
    case "entitySet":
      return fromList(scope.entitySets, argument.value);
    case "key":
      return keys(scope, entitySetOf(scope, context, argument.name), argument.value);
    case "property":
      return fromList(narrowingProperties(scope.ctx.model, entitySetOf(scope, context, argument.name)), argument.value);
    default:
      return propertyValues(scope, entitySetOf(scope, context, argument.name), context, argument.value);
  }
}

/** the entity set an argument depends on, from the arguments already given */
function entitySetOf(scope: CompletionScope, context: Readonly<Record<string, string>>, argument: string): string {
  const set = context.entitySet;
  if (set === undefined) throw invalid(`Completing ${argument} needs context.arguments.entitySet.`);
  if (!scope.entitySets.includes(set)) throw invalid(`There is no entity set ${set}.`);
  return set;
}

/** a records resource's value: of the property chosen before it */
function propertyValues(
  scope: CompletionScope,
  entitySet: string,
  context: Readonly<Record<string, string>>,
  prefix: string,
): Promise<CompleteResult> | CompleteResult {
  const property = context.property;
  if (property === undefined) throw invalid("Completing value needs context.arguments.property.");
  const narrowing = narrowingOf(scope.ctx.model, entitySet, property);
  if (narrowing === undefined) throw invalid(`${entitySet} has no property ${property} to find records by.`);
  if (narrowing.kind === "reference") return keys(scope, narrowing.target, prefix);
  if (narrowing.field.kind === "text") return startingWith(scope, entitySet, property, prefix);
  return scalarValues(narrowing.field, prefix);
}

/** the values a scalar can take when they are few: an enum's members, true and false */
function scalarValues(field: ScalarField, prefix: string): CompleteResult {
  if (field.kind === "enum") return fromList(field.values, prefix);
  if (field.kind === "boolean") return fromList(["false", "true"], prefix);
  return NOTHING;
}

/** natural keys of `entity` starting with `prefix`; nothing for an entity known by Guid only or by a number */
function keys(scope: CompletionScope, entity: string, prefix: string): Promise<CompleteResult> | CompleteResult {
  const property = naturalKeyOf(scope.ctx.model, entity);
  const field = scope.ctx.model.entity(entity)?.fields[property];
  if (field?.kind === "enum") return fromList(field.values, prefix);
  return field?.kind === "text" ? startingWith(scope, entity, property, prefix) : NOTHING;
}

/** the values of a text property starting with `prefix`, read through the API in its order */
async function startingWith(
  { ctx }: CompletionScope,
  entity: string,
  property: string,
  prefix: string,
): Promise<CompleteResult> {
  // one more than shown tells whether there are more; the row limit is under the server's page size
  const shown = Math.min(MAX_VALUES, ctx.rowLimit);
  const search = new URLSearchParams({ $select: property, $orderby: property, $top: String(shown + 1) });
  if (prefix !== "") {
    search.set("$filter", `startswith(${property},@prefix)`);
    search.set("@prefix", odataString(prefix));
  }
  try {
    const rows = (
      (await ctx.api.send("GET", ctx.api.path(entity, search))).body as { value: Record<string, unknown>[] }
    ).value;
    const values = [...new Set(rows.map((r) => r[property]).filter((v): v is string => typeof v === "string"))];
    const hasMore = rows.length > shown;
    return { completion: { values: values.slice(0, shown), ...(!hasMore && { total: values.length }), hasMore } };
  } catch (err) {
    // what the caller may not read, it gets no suggestions from
    if (err instanceof ApiFailure && err.status === 403) return NOTHING;
    throw err;
  }
}
