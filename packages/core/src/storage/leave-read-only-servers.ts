/**
 * Failover without a restart (docs/guide/topologies.md): when a write fails because its server
 * accepts no writes (SQLSTATE 25006 read_only_sql_transaction: a primary demoted to a standby,
 * or switched to read-only, while the host's connections to it stayed open), the pools are
 * replaced, so that their next connections pick a server again, by `target_session_attrs` of a
 * multi-host URL or by a DNS name or virtual IP that now names the new primary. The failed
 * request is answered 503 with Retry-After (transient-errors.ts) and its retry finds the new pools.
 */
import type { ReplaceablePool } from "./replaceable-pool.js";
import { databaseErrorOf } from "./transient-errors.js";

/** whether `error` says that the server accepts no writes (now, or as a standby) */
export function isReadOnlyServerError(error: unknown): boolean {
  const e = databaseErrorOf(error);
  return e !== null && typeof e === "object" && (e as { code?: unknown }).code === "25006";
}

/**
 * Wraps the work of writing operations: one that fails with 25006 replaces `pools`. Only work
 * that started after the last replacement does, since work that started before ran on the
 * replaced pools; and at most once per `intervalMs`, so that a server that stays read-only, say
 * the only one a URL names, is not reconnected to by every write.
 */
export function leavingReadOnlyServers(pools: readonly ReplaceablePool[], intervalMs = 1000) {
  let replaced = Number.NEGATIVE_INFINITY;
  return async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } catch (error) {
      if (isReadOnlyServerError(error) && started > replaced && started - replaced >= intervalMs) {
        replaced = performance.now();
        for (const pool of pools) pool.replace();
      }
      throw error;
    }
  };
}
