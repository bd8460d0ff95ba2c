/**
 * Sign-in throttling (OWASP authentication guidance; Keycloak's brute-force detection): counters
 * per (account, client address) pair, per address and per account, in PostgreSQL so every host
 * shares them. An attempt is counted before its password is hashed, in one transaction that
 * locks the attempt's keys: of N simultaneous guesses, on however many hosts, only as many as the
 * limits allow are checked, and the rest get `429` with `Retry-After`.
 *
 * Past a key's limit each counted failure blocks it for twice as long as the one before (the
 * first delay, then doubling up to the key's cap). The pair and the address are the attacker's
 * own: their caps are long. The account's is short, so that guesses from elsewhere can only
 * slow its owner down, never lock them out.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { inArray, sql } from "drizzle-orm";
import { signInThrottleTable as t } from "./auth-tables.js";

/** when a key blocks: after `failures` counted failures, for at most `maxDelay` seconds */
export interface ThrottleRule {
  readonly failures: number;
  readonly maxDelay: number;
}

export interface ThrottleSettings {
  readonly pair: ThrottleRule;
  readonly address: ThrottleRule;
  readonly account: ThrottleRule;
  /** seconds the first block lasts (cut to a key's cap); each further failure doubles it */
  readonly firstDelay: number;
  /** seconds after a key's last failure when its count starts again */
  readonly resetAfter: number;
}

export const defaultThrottle: ThrottleSettings = {
  pair: { failures: 5, maxDelay: 15 * 60 },
  address: { failures: 20, maxDelay: 15 * 60 },
  account: { failures: 10, maxDelay: 60 },
  firstDelay: 1,
  resetAfter: 24 * 3600,
};

const account = (tenantId: string, username: string) => `${tenantId}/${username.toLowerCase()}`;

/** the key of everything tried from `address` */
export const addressKey = (address: string) => `address:${address}`;

/** the keys one attempt counts against; without an address (an in-process request), the account's only */
export function attemptKeys(
  settings: ThrottleSettings,
  tenantId: string,
  username: string,
  address: string | undefined,
): AttemptKey[] {
  const who = account(tenantId, username);
  return [
    { key: `account:${who}`, rule: settings.account, clearedBySuccess: true },
    ...(address === undefined
      ? []
      : [
          { key: `pair:${address} ${who}`, rule: settings.pair, clearedBySuccess: true },
          // a success of someone's own account must not clear what an address did to others
          { key: addressKey(address), rule: settings.address, clearedBySuccess: false },
        ]),
  ];
}

export interface AttemptKey {
  readonly key: string;
  readonly rule: ThrottleRule;
  readonly clearedBySuccess: boolean;
}

/** every this-many attempts a host counts, the rows whose counts are forgotten are deleted */
const SWEEP_EVERY = 200;
let attemptsCounted = 0;

/** deletes the keys whose count is forgotten and whose block is over: they would start from nothing anyway */
export async function sweepForgotten(db: Database, settings: ThrottleSettings): Promise<void> {
  await db.query(sql`DELETE FROM ${t}
    WHERE coalesce(${t.lastFailureAt}, ${t.windowStart}) < now() - make_interval(secs => ${settings.resetAfter})
    AND (${t.blockedUntil} IS NULL OR ${t.blockedUntil} < now())`);
}

export type Admission = { readonly allowed: true } | { readonly allowed: false; readonly retryAfter: number };

/**
 * Counts an attempt as a failure on every key, or on none when one of them is blocked. The keys'
 * rows are locked in one order (sorted) by every caller, so concurrent attempts queue instead of
 * deadlocking, and each sees the counts the one before it left.
 */
export async function admitAttempt(
  db: Database,
  keys: readonly AttemptKey[],
  settings: ThrottleSettings,
): Promise<Admission> {
  const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : 1));
  if (++attemptsCounted % SWEEP_EVERY === 0) await sweepForgotten(db, settings);
  return db.transaction(async (tx) => {
    const q = tableQueries(tx);
    const rows = await q
      .insert(t)
      .values(sorted.map(({ key }) => ({ key, failures: 0, windowStart: sql`now()` })))
      // an update that changes nothing, for its row lock and RETURNING
      .onConflictDoUpdate({ target: t.key, set: { failures: sql`${t.failures}` } })
      .returning({ wait: sql<number | null>`ceil(extract(epoch FROM ${t.blockedUntil} - now()))::int` });
    const wait = Math.max(0, ...rows.map((r) => Number(r.wait ?? 0)));
    if (wait > 0) return { allowed: false, retryAfter: wait };
    const rules = sql.join(
      sorted.map(({ key, rule }) => sql`(${key}::text, ${rule.failures}::int, ${rule.maxDelay}::int)`),
      sql`, `,
    );
    const forgotten = sql`coalesce(${t.lastFailureAt}, ${t.windowStart}) < now() - make_interval(secs => ${settings.resetAfter})`;
    const failures = sql`CASE WHEN ${forgotten} THEN 1 ELSE ${t.failures} + 1 END`;
    // 2^(past the limit), bounded before it can overflow
    const delay = sql`least(rule.max_delay, ${settings.firstDelay} * power(2, least(${failures} - rule.failures, 30)))`;
    await tx.query(sql`UPDATE ${t} SET
      failures = ${failures},
      window_start = CASE WHEN ${forgotten} THEN now() ELSE ${t.windowStart} END,
      last_failure_at = now(),
      blocked_until = CASE WHEN ${failures} >= rule.failures THEN now() + make_interval(secs => ${delay}) END
      FROM (VALUES ${rules}) AS rule(key, failures, max_delay)
      WHERE ${t.key} = rule.key`);
    return { allowed: true };
  });
}

/**
 * A success: the pair's and the account's counts are cleared; the address's count takes back the
 * failure admitAttempt counted for it (and its block, when that failure made it), so that people
 * signing in behind one address do not block it.
 */
export async function recordSuccess(db: Database, keys: readonly AttemptKey[]): Promise<void> {
  const cleared = keys.filter((k) => k.clearedBySuccess).map((k) => k.key);
  const kept = keys.filter((k) => !k.clearedBySuccess);
  const q = tableQueries(db);
  if (cleared.length > 0) await q.delete(t).where(inArray(t.key, cleared));
  for (const { key, rule } of kept) {
    await db.query(sql`UPDATE ${t} SET
      failures = greatest(${t.failures} - 1, 0),
      blocked_until = CASE WHEN ${t.failures} - 1 < ${rule.failures} THEN NULL ELSE ${t.blockedUntil} END
      WHERE ${t.key} = ${key}`);
  }
}
