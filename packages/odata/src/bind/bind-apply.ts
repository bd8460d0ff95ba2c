/**
 * Binds `$apply`: `filter(…)` steps, then one `aggregate(…)` or `groupby((…),aggregate(…))`,
 * then `filter(…)` steps on the result. Inputs must be persisted properties (spec 4.4 rule 1),
 * paths through references allowed. `$orderby`, `$top`, `$skip` and `$count` apply to the result;
 * `$filter`, `$select` and `$expand` do not combine with `$apply` here and say so.
 */
import { type AnyEntity, badRequest, type Model } from "@bizdata/core";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { AggregateItem, Expr, QueryOptions } from "../syntax/ast.js";
import type { AggregateProperty, ApplyQuery, GroupProperty } from "./apply-query.js";
import { invalidExpression } from "./bind-errors.js";
import { bindExpr, bindPredicate } from "./bind-expression.js";
import { type ParameterAliases, parameterAliases } from "./bind-parameter-alias.js";
import type { BindScope } from "./bind-path.js";
import type { BindOptions } from "./bind-query.js";
import { type BoundExpr, isNumeric, type ValueType } from "./bound-expr.js";

function and(a: BoundExpr | undefined, b: BoundExpr): BoundExpr {
  return a === undefined ? b : { kind: "binary", type: "boolean", op: "and", left: a, right: b };
}

function bindAggregate(scope: BindScope, item: AggregateItem): AggregateProperty {
  const { option } = scope;
  if (item.expr === null)
    return { alias: item.alias, expr: { kind: "aggregate", type: "integer", method: "count", operand: null } };
  const operand = bindExpr(scope, item.expr);
  if (operand.kind === "lambda" || operand.type === "null")
    throw invalidExpression(option, `${item.alias}: aggregate a property or an expression`);
  let type: ValueType;
  switch (item.method) {
    case "sum":
    case "average":
      if (!isNumeric(operand.type))
        throw invalidExpression(option, `${item.method} needs numbers, and ${item.alias}'s input is ${operand.type}`);
      type = item.method === "average" ? "decimal" : operand.type;
      break;
    case "min":
    case "max":
      type = operand.type;
      break;
    case "countdistinct":
    case "count":
      type = "integer";
      break;
  }
  return { alias: item.alias, expr: { kind: "aggregate", type, method: item.method, operand } };
}

/** whether an expression over the grouped result reads only grouped values and aggregates */
function groupedOnly(expr: BoundExpr, groups: readonly GroupProperty[]): boolean {
  // the same column reached the same way: compare what identifies it, not the whole tree
  const same = (a: BoundExpr, b: BoundExpr) =>
    a.kind === "column" &&
    b.kind === "column" &&
    a.from === b.from &&
    a.column.column === b.column.column &&
    a.via.length === b.via.length &&
    a.via.every((step, i) => step.column.column === b.via[i]!.column.column);
  switch (expr.kind) {
    case "literal":
    case "aggregate":
      return true;
    case "column":
      return groups.some((g) => same(g.expr, expr));
    case "alias":
      return groupedOnly(expr.expr, groups);
    case "binary":
      return groupedOnly(expr.left, groups) && groupedOnly(expr.right, groups);
    case "not":
    case "negate":
      return groupedOnly(expr.operand, groups);
    case "in":
      return groupedOnly(expr.operand, groups);
    case "call":
      return expr.args.every((a) => groupedOnly(a, groups));
    case "case":
      return expr.branches.every((b) => groupedOnly(b.when, groups) && groupedOnly(b.value, groups));
    case "lambda":
    case "count":
      return false;
  }
}

/** what an `$apply` binds with, at the top level or inside an `$expand` (`prefix` names where) */
export interface ApplyContext {
  readonly model: Model;
  readonly limits: QueryLimits;
  readonly parameters: ParameterAliases;
  /** `""`, or `$expand(Details)/` for the options of an expanded collection */
  readonly prefix: string;
}

export function bindApply(
  model: Model,
  entity: AnyEntity,
  options: QueryOptions,
  bindOptions: BindOptions = {},
): ApplyQuery {
  const parameters = parameterAliases(options.aliases, bindOptions.aliases);
  return bindApplyIn(
    { model, limits: bindOptions.limits ?? defaultQueryLimits, parameters, prefix: "" },
    entity,
    options,
  );
}

/** `$apply` with the options beside it over `entity`, in `context` */
export function bindApplyIn(context: ApplyContext, entity: AnyEntity, options: QueryOptions): ApplyQuery {
  const { model, limits, parameters, prefix } = context;
  const option = `${prefix}$apply`;
  for (const name of ["filter", "select", "expand", "compute", "search"] as const) {
    if (options[name] !== undefined) {
      throw badRequest(
        "NotSupported",
        `$${name} cannot be combined with $apply; put it inside $apply (e.g. filter(…)).`,
        `${prefix}$${name}`,
      );
    }
  }
  const scope: BindScope = { model, option, entity, variables: new Map(), aliases: new Map(), parameters, limits };
  let where: BoundExpr | undefined;
  let having: BoundExpr | undefined;
  let groups: GroupProperty[] = [];
  let aggregates: AggregateProperty[] = [];
  let grouped = false;
  const resultAliases = new Map<string, BoundExpr>();
  for (const step of options.apply ?? []) {
    if (step.kind === "filter") {
      if (!grouped) where = and(where, bindPredicate(scope, step.predicate));
      else {
        const predicate = bindPredicate({ ...scope, aliases: resultAliases }, step.predicate);
        if (!groupedOnly(predicate, groups))
          throw invalidExpression(option, "a filter after grouping can use only grouped properties and aggregates");
        having = and(having, predicate);
      }
      continue;
    }
    if (grouped) throw badRequest("NotSupported", "$apply supports one aggregate() or groupby() step.", option);
    grouped = true;
    const items = step.kind === "aggregate" ? step.items : (step.aggregate ?? []);
    if (step.kind === "groupby") {
      groups = step.groups.map((path) => ({ path: path.segments, expr: bindExpr(scope, path as Expr) }));
    }
    aggregates = items.map((item) => bindAggregate(scope, item));
    for (const a of aggregates) {
      if (resultAliases.has(a.alias) || Object.hasOwn(entity.fields, a.alias)) {
        throw invalidExpression(option, `the alias "${a.alias}" is used twice or names a property`);
      }
      resultAliases.set(a.alias, a.expr);
    }
  }
  if (!grouped)
    throw badRequest(
      "NotSupported",
      "$apply needs an aggregate() or groupby() step; use $filter to filter records.",
      option,
    );
  const orderBy = (options.orderby ?? []).map((item) => {
    const orderOption = `${prefix}$orderby`;
    const expr = bindExpr({ ...scope, option: orderOption, aliases: resultAliases }, item.expr);
    if (!groupedOnly(expr, groups))
      throw invalidExpression(orderOption, "with $apply, order by grouped properties and aggregate aliases");
    return { expr, direction: item.direction };
  });
  return {
    entity,
    groups,
    aggregates,
    orderBy,
    count: options.count ?? false,
    ...(where !== undefined && { where }),
    ...(having !== undefined && { having }),
    ...(options.top !== undefined && { top: options.top }),
    ...(options.skip !== undefined && { skip: options.skip }),
  };
}
