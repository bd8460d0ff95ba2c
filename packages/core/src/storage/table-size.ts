/**
 * Which tables are large: large enough that a migration must not lock them for a whole rebuild
 * at a host's start (a concurrent index build, a column retyped only when asked: migrate.ts,
 * byte-order-upgrade.ts).
 */
import type { Session } from "./database.js";
import { quoteIdentifier as q } from "./naming.js";

/** a table this large is changed without blocking its writers, or not at once */
const LARGE_TABLE_ROWS = 100_000;

/**
 * Whether `table` holds LARGE_TABLE_ROWS rows or more, given the planner's estimate of its rows
 * (`pg_class.reltuples`, which autovacuum keeps current). A table never analyzed has no estimate
 * (-1): PGlite runs no autovacuum, and a table an earlier version filled may not have been
 * analyzed yet. Its rows are counted then, up to the limit, which reads at most that many.
 */
export async function isLargeTable(session: Session, table: string, estimate: number): Promise<boolean> {
  if (estimate >= 0) return estimate >= LARGE_TABLE_ROWS;
  const [row] = await session.query<{ rows: number }>({
    sql: `SELECT count(*)::int AS rows FROM (SELECT FROM ${q(table)} LIMIT $1) AS t`,
    params: [LARGE_TABLE_ROWS],
  });
  return row!.rows >= LARGE_TABLE_ROWS;
}
