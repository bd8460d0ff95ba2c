/**
 * Binds parsed query options to a read of one entity, recursively for `$expand`: `$compute`
 * first (its aliases feed the other options), then `$filter`, `$orderby`, `$select`, `$expand`.
 * Limits on expand depth and width are checked here, where the tree is built.
 */
import { type AnyEntity, badRequest, columnOf, type Model, type PersistedField } from "@bizdata/core";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { ExpandItem, QueryOptions } from "../syntax/ast.js";
import { bindApplyIn } from "./bind-apply.js";
import { invalidExpression, unknownProperty } from "./bind-errors.js";
import { bindExpr, bindPredicate } from "./bind-expression.js";
import { type ParameterAliases, parameterAliases } from "./bind-parameter-alias.js";
import type { BindScope } from "./bind-path.js";
import { bindSearch } from "./bind-search.js";
import { bindSelect } from "./bind-select.js";
import type { BoundExpr } from "./bound-expr.js";
import type { ExpandNode, OrderItem, ReadQuery } from "./read-query.js";

export interface BindOptions {
  readonly limits?: QueryLimits;
  /**
   * Values of parameter aliases supplied by server code, by name without `@`: typed against what
   * they are compared with and sent as statement parameters. They take precedence over `@name=…`
   * in the URL.
   */
  readonly aliases?: ReadonlyMap<string, unknown>;
}

/** what every level of a read binds with */
interface ReadContext {
  readonly model: Model;
  readonly limits: QueryLimits;
  readonly parameters: ParameterAliases;
}

function bindCompute(
  context: ReadContext,
  entity: AnyEntity,
  options: QueryOptions,
  prefix: string,
): Map<string, BoundExpr> {
  const aliases = new Map<string, BoundExpr>();
  for (const item of options.compute ?? []) {
    const option = `${prefix}$compute`;
    if (
      Object.hasOwn(entity.fields, item.alias) ||
      Object.hasOwn(entity.virtuals, item.alias) ||
      aliases.has(item.alias)
    ) {
      throw invalidExpression(option, `the alias "${item.alias}" is already a property or alias of ${entity.name}`);
    }
    // an alias may use the aliases defined before it
    const scope: BindScope = { ...context, option, entity, variables: new Map(), aliases };
    aliases.set(item.alias, bindExpr(scope, item.expr));
  }
  return aliases;
}

function bindExpand(
  context: ReadContext,
  entity: AnyEntity,
  item: ExpandItem,
  prefix: string,
  depth: number,
): ExpandNode {
  const { model } = context;
  const option = `${prefix}$expand`;
  const [head, member] = item.path as [string, string | undefined];
  const field = Object.hasOwn(entity.fields, head) ? (entity.fields[head] as PersistedField) : undefined;
  if (field === undefined) {
    if (Object.hasOwn(entity.virtuals, head)) {
      throw badRequest("NotExpandable", `${entity.name}.${head} is a value, not a related entity.`, option);
    }
    throw unknownProperty(entity.name, head, option, Object.keys(entity.fields));
  }
  const nested = `${prefix}$expand(${item.path.join("/")})/`;
  if (field.kind === "collection" && member === undefined) {
    const inverse = columnOf(field.target, [field.inverse])!;
    if (item.options.apply !== undefined) {
      // the expanded items aggregated (Data Aggregation 4.0 §3.15): their rows are the groups
      const apply = bindApplyIn({ ...context, prefix: nested }, field.target, item.options);
      const query = { entity: field.target, select: [], expand: [], orderBy: [], count: apply.count };
      return { kind: "collection", name: head, inverse, query, apply };
    }
    const query = bindRead(context, field.target, item.options, nested, depth + 1);
    return { kind: "collection", name: head, inverse, query };
  }
  const referenceField =
    field.kind === "reference"
      ? field
      : field.kind === "complex" && member !== undefined
        ? field.fields[member]
        : undefined;
  if (referenceField?.kind !== "reference" || item.path.length > (field.kind === "complex" ? 2 : 1)) {
    throw badRequest(
      "NotExpandable",
      `${entity.name}.${item.path.join("/")} is not a reference or collection.`,
      option,
    );
  }
  const target = model.entity(referenceField.target)!;
  const { filter, orderby, top, skip, count, apply, search } = item.options;
  if (filter || orderby || top !== undefined || skip !== undefined || count || apply || search) {
    throw badRequest(
      "NotSupported",
      `${item.path.join("/")} is a single record: only $select, $expand and $compute apply inside its $expand.`,
      option,
    );
  }
  const query = bindRead(context, target, item.options, nested, depth + 1);
  return { kind: "reference", path: item.path, navigation: { column: columnOf(entity, item.path)!, target }, query };
}

function bindRead(
  context: ReadContext,
  entity: AnyEntity,
  options: QueryOptions,
  prefix: string,
  depth: number,
): ReadQuery {
  const { limits } = context;
  if (options.apply !== undefined)
    throw badRequest("NotSupported", "$apply cannot be combined with a read of records here.", `${prefix}$apply`);
  const aliases = bindCompute(context, entity, options, prefix);
  const scope = (option: string): BindScope => ({
    ...context,
    option: `${prefix}${option}`,
    entity,
    variables: new Map(),
    aliases,
  });
  const expandItems = options.expand ?? [];
  if (expandItems.length > 0 && depth >= limits.maxExpandDepth) {
    throw badRequest(
      "ExpandTooDeep",
      `$expand is nested deeper than ${limits.maxExpandDepth} levels.`,
      `${prefix}$expand`,
    );
  }
  if (expandItems.length > limits.maxExpandWidth) {
    throw badRequest(
      "ExpandTooWide",
      `$expand names more than ${limits.maxExpandWidth} items at one level.`,
      `${prefix}$expand`,
    );
  }
  const expand = expandItems.map((item) => bindExpand(context, entity, item, prefix, depth));
  const expanded = new Set(expand.map((e) => (e.kind === "collection" ? e.name : e.path.join("/"))));
  if (expanded.size < expand.length)
    throw badRequest("InvalidExpand", "The same property is expanded twice.", `${prefix}$expand`);
  const orderBy: OrderItem[] = (options.orderby ?? []).map((item) => {
    const expr = bindExpr(scope("$orderby"), item.expr);
    if (expr.kind === "lambda" || expr.type === "null") {
      throw invalidExpression(`${prefix}$orderby`, "order by a property or an expression over properties");
    }
    return { expr, direction: item.direction };
  });
  return {
    entity,
    // an expanded reference replaces its Guid in the output, so it is not also selected as a value
    select: bindSelect(context.model, entity, options.select, aliases, `${prefix}$select`).filter(
      (p) => !(p.kind === "column" && expanded.has(p.name)),
    ),
    expand,
    orderBy,
    count: options.count ?? false,
    ...(options.filter !== undefined && { filter: bindPredicate(scope("$filter"), options.filter) }),
    ...(options.search !== undefined && { search: bindSearch(entity, options.search, `${prefix}$search`) }),
    ...(options.top !== undefined && { top: options.top }),
    ...(options.skip !== undefined && { skip: options.skip }),
  };
}

/**
 * @example bindQuery(model, model.entity("Customer")!, parseQueryOptions(params))
 */
export function bindQuery(
  model: Model,
  entity: AnyEntity,
  options: QueryOptions,
  bindOptions: BindOptions = {},
): ReadQuery {
  const context: ReadContext = {
    model,
    limits: bindOptions.limits ?? defaultQueryLimits,
    parameters: parameterAliases(options.aliases, bindOptions.aliases),
  };
  return bindRead(context, entity, options, "", 0);
}
