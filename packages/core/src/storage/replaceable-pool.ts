/**
 * A postgres.js pool that can be swapped for a fresh one, the way a host leaves a server that
 * stopped being the primary without a restart. postgres.js picks a server for a connection only
 * when the connection opens (`target_session_attrs` over the hosts of a multi-host URL, or what
 * a DNS name or virtual IP resolves to then); a connection to a primary that was demoted without
 * a restart stays open and fails every write with 25006. Closing its connections one by one is
 * not possible from outside the driver, and `sql.close()` leaves a reserved connection open, so
 * the pool as a whole is replaced: new work goes to a pool whose connections pick again, and the
 * old one ends, its running work first, within `endTimeoutS` seconds.
 */
import type postgres from "@bizdata/postgres";

export interface ReplaceablePool {
  /** the pool new work goes to */
  readonly sql: postgres.Sql<any>;
  /** opens a fresh pool for new work and ends the one it replaces */
  replace(): void;
  /** ends the pool in use */
  end(): Promise<void>;
}

/** `open(turn)` opens the pool: the first with turn 0, its replacements with 1, 2, … */
export function replaceablePool(open: (turn: number) => postgres.Sql<any>, endTimeoutS: number): ReplaceablePool {
  let turn = 0;
  let sql = open(turn);
  return {
    get sql() {
      return sql;
    },
    replace() {
      const replaced = sql;
      sql = open(++turn);
      // its work fails or finishes on the old server; what waits beyond the timeout is failed
      replaced.end({ timeout: endTimeoutS }).catch(() => {});
    },
    end: () => sql.end({ timeout: endTimeoutS }),
  };
}
