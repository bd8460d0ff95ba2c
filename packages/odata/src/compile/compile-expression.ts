/**
 * Bound expressions to PostgreSQL. Every literal is a bound parameter with an explicit cast (so
 * both drivers type it the same way); identifiers come only from the model. OData's null rules
 * are kept: `eq null` is IS NULL, `ne` treats null as a value (IS DISTINCT FROM), `in` matches
 * null by equality, and a comparison with a null operand is false, not SQL's unknown, so that
 * `not (Cost gt 5)` and `not (Cost eq 5)` hold for a product without a cost (OData 4.01
 * 5.1.1.1). Where only truth counts (a WHERE or EXISTS condition) the plain comparison is kept,
 * because there unknown and false drop the same rows and the plain form can use an index.
 */
import { intervalInput, TENANT_COLUMN } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import type { BoundExpr, CollectionPath, RangeVariable, ValueType } from "../bind/bound-expr.js";
import { QueryScope } from "./query-scope.js";

export interface ExpressionContext {
  /** the FROM clause of each range variable in reach: `null` is the resource itself */
  readonly scopes: ReadonlyMap<RangeVariable, QueryScope>;
  /**
   * The expression is a condition whose result is only tested for truth (WHERE, EXISTS), so a
   * comparison may yield unknown where OData says false. Unset: the value itself is used (under
   * `not`, selected by `$compute`, ordered by), so comparisons are exactly true or false.
   */
  readonly condition?: boolean;
}

const casts: Record<Exclude<ValueType, "null">, string> = {
  string: "text",
  integer: "int8",
  decimal: "numeric",
  boolean: "bool",
  date: "date",
  datetime: "timestamptz",
  timeOfDay: "time",
  duration: "interval",
  guid: "uuid",
};

export const literalSql = (type: ValueType, value: unknown): SQL =>
  type === "null" || value === null
    ? sql`NULL`
    : sql`${type === "duration" ? intervalInput(String(value)) : value}::${sql.raw(casts[type])}`;

const comparison: Record<string, string> = { gt: ">", ge: ">=", lt: "<", le: "<=" };
const arithmetic: Record<string, string> = { add: "+", sub: "-", mul: "*", div: "/", mod: "%" };

const isNullLiteral = (e: BoundExpr) => e.kind === "literal" && e.value === null;
const isLiteral = (e: BoundExpr) => e.kind === "literal";

/** `EXISTS`-style subquery over a collection's items, correlated with its owner */
function collectionSubquery(
  path: CollectionPath,
  ctx: ExpressionContext,
  variable: string | null,
  select: SQL,
  where: (inner: ExpressionContext) => SQL | undefined,
): SQL {
  const outer = ctx.scopes.get(path.from)!;
  const ownerAlias = outer.navigate(path.via);
  const scope = QueryScope.over(path.item, outer.aliases);
  const inner: ExpressionContext = { scopes: new Map(ctx.scopes).set(variable, scope) };
  const condition = where(inner);
  const item = sql.identifier(scope.alias);
  return sql`(SELECT ${select} ${scope.from()} WHERE ${item}.${sql.identifier(TENANT_COLUMN)} = ${sql.identifier(ownerAlias)}.${sql.identifier(TENANT_COLUMN)} AND ${item}.${sql.identifier(path.inverse.column)} = ${sql.identifier(ownerAlias)}.guid${condition ? sql` AND ${condition}` : sql``})`;
}

function callSql(name: string, args: readonly SQL[], types: readonly ValueType[]): SQL {
  const [a, b, c] = args as [SQL, SQL, SQL];
  // date parts of an instant are taken in UTC, the zone every datetime is written in
  const utc = (x: SQL, t: ValueType | undefined) => (t === "datetime" ? sql`(${x} AT TIME ZONE 'UTC')` : x);
  const part = (field: string) => sql`extract(${sql.raw(field)} from ${utc(a, types[0])})::int4`;
  switch (name) {
    case "contains":
      return sql`(strpos(${a}, ${b}) > 0)`;
    case "startswith":
      return sql`starts_with(${a}, ${b})`;
    case "endswith":
      return sql`(right(${a}, char_length(${b})) = ${b})`;
    case "length":
      return sql`char_length(${a})`;
    case "indexof":
      return sql`(strpos(${a}, ${b}) - 1)`;
    case "substring":
      // substr takes int4; the integer literals are int8
      return args.length === 3
        ? sql`substr(${a}, (${b} + 1)::int4, (${c})::int4)`
        : sql`substr(${a}, (${b} + 1)::int4)`;
    case "tolower":
      return sql`lower(${a})`;
    case "toupper":
      return sql`upper(${a})`;
    case "trim":
      return sql`btrim(${a})`;
    case "concat":
      return sql`(${a} || ${b})`;
    case "year":
    case "month":
    case "day":
    case "hour":
    case "minute":
      return part(name);
    case "second":
      return sql`floor(extract(second from ${utc(a, types[0])}))::int4`;
    case "fractionalseconds": {
      const seconds = sql`extract(second from ${utc(a, types[0])})`;
      return sql`(${seconds} - floor(${seconds}))`;
    }
    case "date":
      return sql`(${utc(a, types[0])})::date`;
    case "time":
      return sql`(${utc(a, types[0])})::time`;
    case "totalseconds":
      return sql`extract(epoch from ${a})`;
    case "round":
      return sql`round(${a})`;
    case "floor":
      return sql`floor(${a})`;
    case "ceiling":
      return sql`ceil(${a})`;
    case "now":
      return sql`now()`;
  }
  throw new Error(`no SQL for function ${name}`);
}

export function compileExpr(expr: BoundExpr, ctx: ExpressionContext): SQL {
  const sub = (e: BoundExpr) => compileExpr(e, ctx);
  // operands of operators and functions are values, never conditions
  const value = (e: BoundExpr) => compileExpr(e, { scopes: ctx.scopes });
  // a comparison that SQL leaves unknown on a null operand is false in OData
  const twoValued = (comparison: SQL) => (ctx.condition ? comparison : sql`coalesce(${comparison}, false)`);
  switch (expr.kind) {
    case "literal":
      return literalSql(expr.type, expr.value);
    case "column": {
      const scope = ctx.scopes.get(expr.from)!;
      return scope.column(scope.navigate(expr.via), expr.column.column);
    }
    case "alias":
      return sub(expr.expr);
    case "not":
      return sql`(NOT ${value(expr.operand)})`;
    case "negate":
      return sql`(-${value(expr.operand)})`;
    case "in": {
      // `in` is `eq` with each item, so a null item matches a null operand, and an item that is
      // not a literal is compared as `eq` compares two expressions (null equal to null)
      const literals = expr.list.filter((item) => isLiteral(item) && !isNullLiteral(item));
      const others = expr.list.filter((item) => !isLiteral(item));
      const alternatives: SQL[] = [];
      if (literals.length > 0) {
        alternatives.push(twoValued(sql`(${value(expr.operand)} IN (${sql.join(literals.map(value), sql`, `)}))`));
      }
      for (const item of others) alternatives.push(sql`(${value(expr.operand)} IS NOT DISTINCT FROM ${value(item)})`);
      if (expr.list.some(isNullLiteral)) alternatives.push(sql`(${value(expr.operand)} IS NULL)`);
      if (alternatives.length === 0) return sql`false`;
      return alternatives.length === 1 ? alternatives[0]! : sql`(${sql.join(alternatives, sql` OR `)})`;
    }
    case "case": {
      // a condition that SQL leaves unknown does not hold, as in a WHERE; no branch: null
      const branches = expr.branches.map(
        (b) => sql`WHEN ${compileExpr(b.when, { ...ctx, condition: true })} THEN ${value(b.value)}`,
      );
      const result = sql`(CASE ${sql.join(branches, sql` `)} END)`;
      return expr.type === "null" ? result : sql`${result}::${sql.raw(casts[expr.type])}`;
    }
    case "call":
      return callSql(
        expr.name,
        expr.args.map(value),
        expr.args.map((a) => a.type),
      );
    case "count":
      return collectionSubquery(expr.collection, ctx, null, sql`count(*)::int8`, () => undefined);
    case "lambda": {
      const { op, predicate, variable } = expr;
      if (op === "any") {
        return sql`EXISTS ${collectionSubquery(expr.collection, ctx, variable, sql`1`, (inner) => (predicate ? compileExpr(predicate, { ...inner, condition: true }) : undefined))}`;
      }
      if (predicate === null) return sql`true`;
      return sql`NOT EXISTS ${collectionSubquery(expr.collection, ctx, variable, sql`1`, (inner) => sql`NOT coalesce(${compileExpr(predicate, { ...inner, condition: true })}, false)`)}`;
    }
    case "aggregate": {
      if (expr.operand === null) return sql`count(*)`;
      const operand = value(expr.operand);
      switch (expr.method) {
        case "sum":
          return sql`sum(${operand})`;
        case "min":
          return sql`min(${operand})`;
        case "max":
          return sql`max(${operand})`;
        case "average":
          return sql`avg(${operand})`;
        case "countdistinct":
          return sql`count(DISTINCT ${operand})`;
        case "count":
          return sql`count(${operand})`;
      }
      break;
    }
    case "binary": {
      const { op, left, right } = expr;
      if (op === "and" || op === "or") return sql`(${sub(left)} ${sql.raw(op.toUpperCase())} ${sub(right)})`;
      if (op === "eq" || op === "ne") {
        if (isNullLiteral(right) || isNullLiteral(left)) {
          const operand = isNullLiteral(right) ? left : right;
          return sql`(${value(operand)} ${sql.raw(op === "eq" ? "IS NULL" : "IS NOT NULL")})`;
        }
        if (op === "eq") {
          // with a literal on one side `=` can use an index; the literal is not null, so only the
          // other side can make it unknown
          return isLiteral(left) || isLiteral(right)
            ? twoValued(sql`(${value(left)} = ${value(right)})`)
            : sql`(${value(left)} IS NOT DISTINCT FROM ${value(right)})`;
        }
        return sql`(${value(left)} IS DISTINCT FROM ${value(right)})`;
      }
      if (op in comparison) return twoValued(sql`(${value(left)} ${sql.raw(comparison[op]!)} ${value(right)})`);
      // numeric division even of two integers, which `/` would divide as integers
      if (op === "divby") return sql`(${value(left)}::numeric / ${value(right)}::numeric)`;
      if (op in arithmetic) {
        const result = sql`(${value(left)} ${sql.raw(arithmetic[op]!)} ${value(right)})`;
        // PostgreSQL: date ± interval is a timestamp, date - date a number of days
        if (expr.type === "date") return sql`${result}::date`;
        if (left.type === "date" && right.type === "date") return sql`(${result} * interval '1 day')`;
        return result;
      }
      throw new Error(`no SQL for operator ${op}`);
    }
  }
}
