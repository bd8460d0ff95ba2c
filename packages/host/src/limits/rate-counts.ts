/**
 * The request counts every host shares for rate limiting (rate-limits.ts): one row per key (a
 * token's hash, a client address) with the points counted in its current window, a minute of the
 * database's clock, so that every host agrees on where a window starts. Hosts add what they
 * counted since their last flush, all keys in one statement, and learn the totals back.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { lt, sql } from "drizzle-orm";
import { bigint, integer, pgTable, text } from "drizzle-orm/pg-core";

/** not tenant data: counted per token and address before and across tenants */
export const rateCountTable = pgTable("bizdata_rate_count", {
  key: text("key").primaryKey(),
  /** the window's number: seconds since the epoch divided by the window's length */
  window: bigint("window_index", { mode: "number" }).notNull(),
  points: integer("points").notNull(),
});

export const rateTables = [rateCountTable];

const t = rateCountTable;

export interface SharedCount {
  readonly key: string;
  /** what every host counted for the key in the current window, this flush included */
  readonly points: number;
  /** seconds until the current window ends */
  readonly secondsLeft: number;
}

/**
 * Adds `points[i]` to `keys[i]`'s count in the current window of `windowSeconds` (a count of an
 * earlier window starts again) and returns the totals.
 */
export async function addCounts(
  db: Database,
  keys: readonly string[],
  points: readonly number[],
  windowSeconds: number,
): Promise<SharedCount[]> {
  const window = sql`floor(extract(epoch FROM now()) / ${windowSeconds})::bigint`;
  const excluded = (column: { name: string }) => sql`excluded.${sql.identifier(column.name)}`;
  const rows = await tableQueries(db)
    .insert(t)
    .select(
      sql`SELECT k, ${window}, p FROM unnest(${sql.param([...keys])}::text[], ${sql.param([...points])}::int[]) AS u(k, p)`,
    )
    .onConflictDoUpdate({
      target: t.key,
      set: {
        points: sql`CASE WHEN ${t.window} = ${excluded(t.window)} THEN ${t.points} + ${excluded(t.points)} ELSE ${excluded(t.points)} END`,
        window: excluded(t.window),
      },
    })
    .returning({
      key: t.key,
      points: t.points,
      secondsLeft: sql<number>`ceil((${t.window} + 1) * ${windowSeconds} - extract(epoch FROM now()))::int`,
    });
  return rows.map((row) => ({ key: row.key, points: Number(row.points), secondsLeft: Number(row.secondsLeft) }));
}

/** removes the counts of windows before the current one */
export async function dropOldCounts(db: Database, windowSeconds: number): Promise<void> {
  await tableQueries(db)
    .delete(t)
    .where(lt(t.window, sql`floor(extract(epoch FROM now()) / ${windowSeconds})::bigint`));
}
