/**
 * Whether a compiled read must be planned for the values of each run (SqlQuery.planForValues), or
 * may run on a plan PostgreSQL caches for any values. A generic plan is made without the values,
 * from average selectivities: for a statement that reaches its records by key, through the
 * primary key with the tenant, every value gets the plan a custom one would be, and skipping the
 * planning saves most of what PostgreSQL spends on a point read (63 µs planning for 15 µs
 * execution in pg_stat_statements). For anything else the best plan depends on the values: the
 * tenant's share of the table, a filter's selectivity (the generic plan of the bench's path filter
 * joined every contact of the tenant to each customer, 8x slower), a workflow's staged rows, an
 * aggregate's groups.
 */
import type { ApplyQuery } from "../bind/apply-query.js";
import type { ReadQuery } from "../bind/read-query.js";

/** how a statement reaches the records it starts from */
export type Reach =
  /** by their keys: a record's Guid (a navigation's start, an owned item's owner) or a list of Guids */
  | "key"
  /** among all of the tenant's records (a page, a count) */
  | "tenant";

/** whether a read or one of its expands picks records by a condition on values: `$filter` or `$search` */
const picksByValue = (query: ReadQuery): boolean =>
  query.filter !== undefined || query.search !== undefined || query.expand.some((expand) => picksByValue(expand.query));

/**
 * True unless the read reaches its records by key on the base tables and neither it nor its
 * expands filter or search: the expands of a record read by key reach theirs by key too (a
 * reference's Guid, an owned collection's owner), ordered and paged within what one record owns.
 * `staged`: the read lays a workflow's staged rows over the base tables (staged-view.ts), whose
 * number is the workflow's.
 */
export function planForValues(reach: Reach, staged: boolean, query?: ReadQuery | ApplyQuery): boolean {
  if (reach === "tenant" || staged) return true;
  if (query === undefined) return false;
  return "aggregates" in query || picksByValue(query);
}
