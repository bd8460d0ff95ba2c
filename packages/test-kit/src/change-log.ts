/**
 * Reading the change log right after writing, in tests: a reader sees a transaction's changes once
 * every transaction older than it has ended (core's change-reads.ts), and on a PostgreSQL shared by
 * test workers another worker's transaction may still be open. `changesSettled` waits until every
 * transaction that began before it was called has ended, so that what the test committed is in
 * reach; on PGlite, which runs one transaction at a time, at once.
 */
import type { Database } from "@bizdata/core";

export async function changesSettled(db: Database, timeoutMs = 10_000): Promise<void> {
  const [{ next }] = (await db.query<{ next: string }>({
    sql: "SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next",
    params: [],
  })) as [{ next: string }];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [{ ended }] = (await db.query<{ ended: boolean }>({
      sql: "SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS ended",
      params: [next],
    })) as [{ ended: boolean }];
    if (ended) return;
    if (Date.now() > until) throw new Error(`transactions older than ${next} still run after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
