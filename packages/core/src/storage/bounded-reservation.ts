/**
 * A reserved connection within a deadline. postgres.js bounds each attempt to connect
 * (`connect_timeout`) but, over a multi-host URL, tries the next host after a refused connection
 * or a server of the wrong kind (`target_session_attrs`) for as long as it takes: while no server
 * is the primary (one died, the standby is not promoted yet) a reservation would wait without
 * end, and the request with it. Here it fails with CONNECT_TIMEOUT, a transient error (the host's
 * 503 with Retry-After), after `timeoutMs`; a reservation that comes after that is given back.
 * The pool gate (pool-gate.ts) lets no more operations reach a pool than it has connections, so
 * a reservation waits for a connection to open, never for a busy one.
 */
import type postgres from "@bizdata/postgres";

export const connectTimeout = (timeoutMs: number): Error =>
  Object.assign(new Error(`No database server accepted a connection within ${timeoutMs} ms.`), {
    code: "CONNECT_TIMEOUT",
  });

/** a reservation waiting, and when it is late */
interface Waiting {
  readonly deadline: number;
  readonly timeoutMs: number;
  late(): void;
}

/**
 * The reservations waiting, looked at by one timer for all of them every SWEEP_MS: a reservation
 * is granted at once nearly always, and a timer of its own (set, raced, cleared) cost every
 * request that took a connection more than the reservation itself. A deadline is kept to within
 * SWEEP_MS, which next to seconds of timeout is nothing.
 */
const waiting = new Set<Waiting>();
const SWEEP_MS = 100;
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const entry of waiting) if (entry.deadline <= now) entry.late();
  if (waiting.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

export function reserveWithin(sql: postgres.Sql<any>, timeoutMs: number): Promise<postgres.ReservedSql<any>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const entry: Waiting = {
      deadline: performance.now() + timeoutMs,
      timeoutMs,
      late: () => {
        waiting.delete(entry);
        settled = true;
        reject(connectTimeout(timeoutMs));
      },
    };
    waiting.add(entry);
    // the timer keeps no process alive: a reservation does, while its connection opens
    sweeper ??= setInterval(sweep, SWEEP_MS).unref();
    sql.reserve().then(
      (reserved) => {
        // too late: given back, its request has had its error
        if (settled) return reserved.release();
        waiting.delete(entry);
        settled = true;
        resolve(reserved);
      },
      (error: unknown) => {
        if (settled) return;
        waiting.delete(entry);
        settled = true;
        reject(error);
      },
    );
  });
}
