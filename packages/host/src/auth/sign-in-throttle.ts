/**
 * Sign-in throttling per account and per client address (issue: access control). Counters live
 * in PostgreSQL so every host shares them. Past the threshold within the window the key is
 * blocked until the window ends: `429` with `Retry-After`, before any password is checked.
 */
import type { Database } from "@bizdata/core";

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
  const [row] = await db.query<{ seconds: number | null }>({
    sql: `SELECT ceil(extract(epoch FROM max(blocked_until) - now()))::int AS seconds
          FROM bizdata_signin_throttle WHERE key = ANY($1::text[]) AND blocked_until > now()`,
    params: [`{${keys.map((k) => `"${k.replace(/["\\\\]/g, "")}"`).join(",")}}`],
  });
  return Math.max(0, row?.seconds ?? 0);
}

/** counts a failure for a key; blocks it when it reaches `limit` within the window */
export async function recordFailure(db: Database, key: string, limit: number, windowSeconds: number): Promise<void> {
  await db.query({
    sql: `INSERT INTO bizdata_signin_throttle AS t (key, failures, window_start) VALUES ($1, 1, now())
          ON CONFLICT (key) DO UPDATE SET
            failures = CASE WHEN t.window_start < now() - make_interval(secs => $3) THEN 1 ELSE t.failures + 1 END,
            window_start = CASE WHEN t.window_start < now() - make_interval(secs => $3) THEN now() ELSE t.window_start END,
            blocked_until = CASE
              WHEN t.window_start >= now() - make_interval(secs => $3) AND t.failures + 1 >= $2
              THEN t.window_start + make_interval(secs => $3) ELSE t.blocked_until END`,
    params: [key, limit, windowSeconds],
  });
}

/** a successful sign-in clears the account's count */
export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.query({ sql: "DELETE FROM bizdata_signin_throttle WHERE key = $1", params: [key] });
}
