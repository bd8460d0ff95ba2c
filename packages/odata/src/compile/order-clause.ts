/**
 * `$orderby` to SQL. OData orders null before every value (ascending), so nulls go first on asc
 * and last on desc; the Guid always ends the list so that paging is stable.
 */
import { type SQL, sql } from "drizzle-orm";
import type { OrderItem } from "../bind/read-query.js";
import { compileExpr } from "./compile-expression.js";
import type { QueryScope } from "./query-scope.js";

export function orderClause(items: readonly OrderItem[], scope: QueryScope): SQL {
  const ctx = { scopes: new Map([[null, scope]]) };
  const terms = items.map(({ expr, direction }) =>
    direction === "asc"
      ? sql`${compileExpr(expr, ctx)} ASC NULLS FIRST`
      : sql`${compileExpr(expr, ctx)} DESC NULLS LAST`,
  );
  return sql.join([...terms, sql`${sql.identifier(scope.alias)}.guid`], sql`, `);
}
