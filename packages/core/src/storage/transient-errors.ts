/**
 * Which database errors are the database's state rather than the request's fault: the server is
 * down, restarting, out of connections, or took too long (statement, lock, idle-in-transaction and
 * connect timeouts, a pool that found no free connection in time), or accepts no writes because it
 * is no longer the primary (a failover: leave-read-only-servers.ts). The same request may succeed
 * in a few seconds, so the host answers 503 with Retry-After instead of 500.
 */

// PostgreSQL: 08 connection exceptions, 57P01-03 shutdown / crash / starting up; postgres.js:
// CONNECT_TIMEOUT and CONNECTION_CLOSED/ENDED/DESTROYED; Node's socket and name lookup errors
const UNREACHABLE =
  /^(08|57P0[1-3]$|CONNECT_TIMEOUT$|CONNECTION_|E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN|NOTFOUND)$)/;
// PostgreSQL: 53300 too many connections, 57014 statement timeout (or a cancel), 55P03 lock
// timeout, 25P03 idle in transaction timeout, 25006 read-only transaction (a write on a server
// that was demoted: leave-read-only-servers.ts); ours: POOL_TIMEOUT (pool-gate.ts) and
// CONNECT_TIMEOUT (bounded-reservation.ts, matched as unreachable)
const BUSY = /^(53300|57014|55P03|25P03|25006|POOL_TIMEOUT)$/;

/**
 * The database's own error behind `error`: drizzle's query builder (tableQueries) wraps what the
 * driver threw in an error of its own, with the driver's as its `cause`.
 */
export function databaseErrorOf(error: unknown): unknown {
  if (error !== null && typeof error === "object" && !("code" in error) && "cause" in error) {
    const cause = (error as { cause: unknown }).cause;
    if (cause !== null && typeof cause === "object" && "code" in cause) return cause;
  }
  return error;
}

/** the code of the database error behind `thrown`, if it has one */
export function databaseErrorCode(thrown: unknown): string | undefined {
  const error = databaseErrorOf(thrown);
  if (error === null || typeof error !== "object" || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** whether `error` (anything thrown) says the database server cannot be reached or is shutting down */
export function isUnreachableDatabaseError(thrown: unknown): boolean {
  const code = databaseErrorCode(thrown);
  return code !== undefined && UNREACHABLE.test(code);
}

/** whether `error` (anything thrown) says the database cannot serve right now */
export function isTransientDatabaseError(thrown: unknown): boolean {
  const code = databaseErrorCode(thrown);
  return code !== undefined && (UNREACHABLE.test(code) || BUSY.test(code));
}
