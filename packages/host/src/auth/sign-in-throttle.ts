/**
 * Sign-in throttling per account and per client address (issue: access control). Counters live
 * in PostgreSQL so every host shares them. Past the threshold within the window the key is
 * blocked until the window ends: `429` with `Retry-After`, before any password is checked.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { signInThrottleTable as t } from "./auth-tables.js";

export interface ThrottleSettings {
  /** failures per account within the window before it is blocked */
  readonly accountFailures: number;
  /** failures per client address within the window */
  readonly addressFailures: number;
  readonly windowSeconds: number;
}

export const defaultThrottle: ThrottleSettings = { accountFailures: 5, addressFailures: 20, windowSeconds: 15 * 60 };

export const accountKey = (tenantId: string, username: string) => `account:${tenantId}/${username.toLowerCase()}`;
export const addressKey = (address: string) => `address:${address}`;

/** seconds until the longest block among `keys` ends, or 0 */
export async function blockedFor(db: Database, keys: readonly string[]): Promise<number> {
  const [row] = await tableQueries(db)
    .select({
      seconds: sql<number | null>`ceil(extract(epoch FROM max(${t.blockedUntil}) - now()))::int`.as("seconds"),
    })
    .from(t)
    .where(and(inArray(t.key, [...keys]), gt(t.blockedUntil, sql`now()`)));
  return Math.max(0, Number(row?.seconds ?? 0));
}

/** counts a failure for a key; blocks it when it reaches `limit` within the window */
export async function recordFailure(db: Database, key: string, limit: number, windowSeconds: number): Promise<void> {
  const windowOpen = sql`now() - make_interval(secs => ${windowSeconds})`;
  const expired = sql`${t.windowStart} < ${windowOpen}`;
  await tableQueries(db)
    .insert(t)
    .values({ key, failures: 1, windowStart: sql`now()` })
    .onConflictDoUpdate({
      target: t.key,
      set: {
        failures: sql`CASE WHEN ${expired} THEN 1 ELSE ${t.failures} + 1 END`,
        windowStart: sql`CASE WHEN ${expired} THEN now() ELSE ${t.windowStart} END`,
        blockedUntil: sql`CASE WHEN NOT ${expired} AND ${t.failures} + 1 >= ${limit}
          THEN ${t.windowStart} + make_interval(secs => ${windowSeconds}) ELSE ${t.blockedUntil} END`,
      },
    });
}

/** a successful sign-in clears the account's count */
export async function clearFailures(db: Database, key: string): Promise<void> {
  await tableQueries(db).delete(t).where(eq(t.key, key));
}
