/**
 * The change log's retention (CHANGE_LOG_RETENTION): rows older than it, by some margin, are
 * deleted in batches, outside every tenant (the log lets its owner delete: change-table.ts), by
 * whoever runs the prune, a host in the background. Several hosts may prune at once: one deletes
 * while the others find nothing left to take (`pg_try_advisory_xact_lock`).
 *
 * A delta token older than the retention is refused (answered 410), so a reader never resumes
 * from rows that may be gone. The margin covers a reader whose token is just inside the retention
 * while a transaction it must still see was open across that boundary: a row is needed after its
 * token's time only while some transaction open when the token was made is still running, and no
 * transaction is open for an hour (the serving limits end one that idles or runs a statement
 * that long within minutes).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../storage/database.js";
import { CHANGE_TABLE } from "./change-table.js";

/** what a row outlives its retention by before it is pruned */
export const PRUNE_MARGIN_SECONDS = 3600;

/** rows deleted per statement: a prune never holds many locks, nor writes much WAL at once */
const BATCH = 5_000;

const PRUNE_LOCK = 0x62697a63; // "bizc"

/** Deletes the rows older than `retentionSeconds` (and the margin); returns how many went. */
export async function pruneChanges(db: Database, retentionSeconds: number): Promise<number> {
  const log = sql.identifier(CHANGE_TABLE);
  const age = retentionSeconds + PRUNE_MARGIN_SECONDS;
  let pruned = 0;
  for (;;) {
    const [row] = await db.transaction((tx) =>
      tx.query<{ n: number | null }>(
        sql`WITH lock AS (SELECT pg_try_advisory_xact_lock(${PRUNE_LOCK}) AS held),
             old AS (SELECT c.tenant_id, c.xid, c.seq FROM ${log} AS c, lock WHERE lock.held AND c.at < statement_timestamp() - make_interval(secs => ${age}) LIMIT ${BATCH}),
             gone AS (DELETE FROM ${log} AS c USING old WHERE c.tenant_id = old.tenant_id AND c.xid = old.xid AND c.seq = old.seq RETURNING 1)
           SELECT (SELECT count(*) FROM gone)::int AS n`,
      ),
    );
    const n = Number(row?.n ?? 0);
    pruned += n;
    if (n < BATCH) return pruned;
  }
}
