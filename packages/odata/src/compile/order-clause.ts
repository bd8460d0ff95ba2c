/**
 * `$orderby` to SQL. OData orders null before every value (ascending), so nulls go first on asc
 * and last on desc; the Guid always ends the list so that paging is stable. A required property
 * of the record itself holds no nulls, so it gets the plain direction: `NULLS FIRST` would stop
 * PostgreSQL from reading its index in order (a full sort instead of an index scan, 25x slower
 * on 10k products in pnpm bench).
 */
import { type SQL, sql } from "drizzle-orm";
import type { BoundExpr } from "../bind/bound-expr.js";
import type { OrderItem } from "../bind/read-query.js";
import { compileExpr } from "./compile-expression.js";
import type { QueryScope } from "./query-scope.js";

export function orderClause(items: readonly OrderItem[], scope: QueryScope): SQL {
  const ctx = { scopes: new Map([[null, scope]]) };
  const terms = items.map(({ expr, direction }) => {
    const value = compileExpr(expr, ctx);
    if (neverNull(expr)) return direction === "asc" ? sql`${value} ASC` : sql`${value} DESC`;
    return direction === "asc" ? sql`${value} ASC NULLS FIRST` : sql`${value} DESC NULLS LAST`;
  });
  return sql.join([...terms, sql`${sql.identifier(scope.alias)}.guid`], sql`, `);
}

/** a required property of the record itself (not reached through a reference, which may be missing) */
const neverNull = (expr: BoundExpr): boolean =>
  expr.kind === "column" && expr.via.length === 0 && (expr.column.field.required || expr.column.column === "guid");
