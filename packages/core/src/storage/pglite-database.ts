/**
 * The embedded driver: PGlite, file-backed under a data directory or in memory (`memory://`).
 * PGlite serves one connection, so its transactions run one after another.
 */
import { PGlite, types } from "@electric-sql/pglite";
// search indexes lead with the tenant through it (search-document.ts)
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { type Database, oneStatementSession, type Row, type Session, type Statement, toQuery } from "./database.js";
import type { StoreOptions } from "./open-database.js";
import { poolUsage } from "./pool-usage.js";
import type { RecordStore } from "./record-port.js";
import { tableStore } from "./record-store.js";
import { analyzingGrowth } from "./table-growth.js";

// the same text forms postgres.js is configured to return, so results match across drivers
const asText = (value: string) => value;
const parsers = {
  [types.NUMERIC]: asText,
  [types.DATE]: asText,
  [types.TIMESTAMPTZ]: asText,
  [types.TIMESTAMP]: asText,
  [types.INT8]: asText,
};

interface Queryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

const session = (db: Queryable, store: RecordStore): Session => ({
  async query<R = Row>(statement: Statement) {
    const { sql, params } = toQuery(statement);
    return (await db.query<R>(sql, params as unknown[])).rows;
  },
  store,
});

export async function openPglite(dataDir: string, options: StoreOptions = {}): Promise<Database> {
  const db = await PGlite.create(dataDir, { parsers, extensions: { btree_gin } });
  // No plan_cache_mode here: PGlite sends every statement unnamed, which PostgreSQL plans for its
  // values each time anyway; forcing custom plans would only make the foreign-key checks plan
  // their lookup again for every row (an insert checking one reference took twice as long)
  // PGlite runs no autovacuum; an ANALYZE asked for inside a transaction waits for it to end
  const store = analyzingGrowth(tableStore(options.changeLog !== false), (statement) => db.query(statement), "table");
  const root = session(db, store);
  const usage = poolUsage(1);
  return {
    driver: "pglite",
    query: (statement) => usage.track(root.query(statement)),
    store,
    transaction: (fn, options) =>
      usage.track(
        // in process, with no round trips to save: the set-up simply runs first
        db.transaction(async (tx) => {
          if (options?.readOnly) await tx.query("SET TRANSACTION READ ONLY");
          const work = session(tx, store);
          if (options?.setup !== undefined) await work.query(options.setup);
          return fn(options?.oneStatement ? oneStatementSession(store, work.query) : work);
        }),
      ),
    close: () => db.close(),
    stats: usage.stats,
  };
}
