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

export async function reserveWithin(sql: postgres.Sql<any>, timeoutMs: number): Promise<postgres.ReservedSql<any>> {
  const reservation = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(connectTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([reservation, late]);
  } catch (error) {
    reservation.then((reserved) => reserved.release()).catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
