import { sql } from "drizzle-orm";
import type { ApplyQuery } from "../bind/apply-query.js";
import { compileExpr, type ExpressionContext } from "./compile-expression.js";

/**
 * The clauses of an `$apply` over the records `ectx` reads, in the order its FROM needs them
 * compiled: the condition before grouping, the grouping, the condition after, the order (by the
 * groups last, so that paging over groups is stable). Shared with `$apply` inside `$expand`.
 */
export function applyClauses(query: ApplyQuery, ectx: ExpressionContext) {
  const where = query.where ? compileExpr(query.where, { ...ectx, condition: true }) : undefined;
  const groupBy = query.groups.map((g) => compileExpr(g.expr, ectx));
  const grouping = sql`${groupBy.length > 0 ? sql` GROUP BY ${sql.join(groupBy, sql`, `)}` : sql``}${query.having ? sql` HAVING ${compileExpr(query.having, { ...ectx, condition: true })}` : sql``}`;
  const terms = [
    ...query.orderBy.map(({ expr, direction }) =>
      direction === "asc"
        ? sql`${compileExpr(expr, ectx)} ASC NULLS FIRST`
        : sql`${compileExpr(expr, ectx)} DESC NULLS LAST`,
    ),
    ...groupBy.map((g) => sql`${g} ASC NULLS FIRST`),
  ];
  const order = terms.length > 0 ? sql` ORDER BY ${sql.join(terms, sql`, `)}` : sql``;
  return { where, groupBy, grouping, order };
}
