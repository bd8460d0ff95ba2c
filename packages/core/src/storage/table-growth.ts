/**
 * Planner statistics that keep up with a tenant's growth. Every table holds all tenants, and a
 * tenant that grows from nothing (an import, a new customer's first weeks) is, until the next
 * ANALYZE, one the statistics say has no rows. PostgreSQL then plans a lookup by key on whichever
 * tenant-led index is smallest and reads all of the tenant's rows for it, and so does every
 * foreign-key check of an insert: in `pnpm bench`'s import, inserting an order's five lines took
 * 20 ms after 10,000 orders, against 1 ms with statistics that knew the orders. Autovacuum
 * analyzes a table only after a tenth of it changed, which a tenant that is a small part of a
 * large table may never reach. So the drivers count the rows inserted per table and analyze the
 * table in the background whenever the count has doubled since the last time (first at 1,000
 * rows), one ANALYZE per table at a time: a handful over a load of millions of rows.
 *
 * On PostgreSQL only the tenant column is analyzed (`what: "tenant column"`): a growing tenant is
 * wrong in the statistics of that column alone (and in the table's row count, which every ANALYZE
 * updates). The other columns' statistics describe the whole table, which autovacuum keeps up
 * with, and a column list also leaves out the statistics of expression indexes (a search index's
 * `to_tsvector` of every sampled row): in `pnpm bench`'s import, analyzing the order lines took
 * 130–215 ms of the server's CPU each time, the tenant column alone 20 ms. Autovacuum still counts
 * the rows as changed, so its own full ANALYZE comes when it would have. PGlite runs no
 * autovacuum, so there the whole table is analyzed (`what: "table"`).
 */
import type { AnyEntity } from "../model/model.js";
import type { Session } from "./database.js";
import { quoteIdentifier, TENANT_COLUMN, tableName } from "./naming.js";
import type { RecordStore } from "./record-port.js";

const FIRST_ANALYZE = 1_000;

/** `store` with its inserts counted per table, and `analyze` run (in the background) as above */
export function analyzingGrowth(
  store: RecordStore,
  analyze: (statement: string) => Promise<unknown>,
  what: "tenant column" | "table",
): RecordStore {
  const columns = what === "table" ? "" : ` (${quoteIdentifier(TENANT_COLUMN)})`;
  const tables = new Map<string, { inserted: number; next: number; running: boolean }>();
  const inserted = (def: AnyEntity, rows: number) => {
    const table = tableName(def);
    let growth = tables.get(table);
    if (growth === undefined) {
      growth = { inserted: 0, next: FIRST_ANALYZE, running: false };
      tables.set(table, growth);
    }
    growth.inserted += rows;
    if (growth.inserted < growth.next || growth.running) return;
    const g = growth;
    g.running = true;
    g.next = g.inserted * 2;
    // a failed ANALYZE (the server restarting, say) leaves the statistics as they were: the next
    // doubling tries again, and nothing a request waits for depends on it
    analyze(`ANALYZE ${quoteIdentifier(table)}${columns}`)
      .catch(() => {})
      .finally(() => {
        g.running = false;
      });
  };
  const insertStatement = store.insertStatement;
  return {
    ...store,
    insert: (session, def, tenantId, records) => {
      inserted(def, records.length);
      return store.insert(session, def, tenantId, records);
    },
    ...(insertStatement && {
      insertStatement: (
        session: Session,
        def: AnyEntity,
        tenantId: string,
        records: readonly Record<string, unknown>[],
      ) => {
        inserted(def, records.length);
        return insertStatement(session, def, tenantId, records);
      },
    }),
  };
}
