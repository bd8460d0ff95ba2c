/**
 * Loads the sample data set into one tenant with bulk inserts (one `unnest` statement per batch
 * of up to a thousand records). Idempotent: a tenant that already holds sample products is left
 * as it is.
 */
import { type Database, insertRecords, inTenant, type Model, type Session, tableName } from "@bizdata/core";
import { generateSampleData, type SampleOptions, sampleTotals } from "@bizdata/examples";

/** only a superuser may switch foreign-key triggers off; everyone else loads with checks */
async function canSkipReferenceChecks(db: Database): Promise<boolean> {
  const [row] = await db.query<{ rolsuper: boolean }>({
    sql: "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
    params: [],
  });
  return row?.rolsuper === true;
}

export interface SeedProgress {
  start(total: number): void;
  advance(records: number): void;
  stop(): void;
}

/** batches per transaction: big enough to amortize commits, small enough to keep memory flat */
const BATCHES_PER_TRANSACTION = 20;

export async function seedSampleData(
  db: Database,
  model: Model,
  tenantId: string,
  options: SampleOptions,
  progress?: SeedProgress,
): Promise<{ seeded: boolean; records: number }> {
  const product = model.entity("Product")!;
  const [existing] = await inTenant(db, tenantId, (tx) =>
    tx.query<{ n: number }>({
      sql: `SELECT count(*)::int AS n FROM ${tableName(product)} WHERE tenant_id = $1`,
      params: [tenantId],
    }),
  );
  if ((existing?.n ?? 0) > 0) return { seeded: false, records: 0 };
  const totals = sampleTotals(options);
  const total = Object.values(totals).reduce((a, b) => a + b, 0);
  progress?.start(total);
  let records = 0;
  let pending: { entity: string; records: Record<string, unknown>[] }[] = [];
  const unchecked = await canSkipReferenceChecks(db);
  const flush = async () => {
    const batches = pending;
    pending = [];
    const load = async (tx: Session) => {
      for (const batch of batches) {
        await insertRecords(tx, model.entity(batch.entity)!, tenantId, batch.records);
        progress?.advance(batch.records.length);
      }
    };
    if (!unchecked) return inTenant(db, tenantId, load);
    return db.transaction(async (tx) => {
      // the generator's references are consistent by construction (and tested): skipping the
      // per-row foreign-key triggers makes the load 5-20x faster
      await tx.query({ sql: "SET LOCAL session_replication_role = replica", params: [] });
      await load(tx);
    });
  };
  for (const batch of generateSampleData(options)) {
    pending.push(batch);
    records += batch.records.length;
    if (pending.length >= BATCHES_PER_TRANSACTION) await flush();
  }
  await flush();
  // fresh statistics, so the planner sees the loaded sizes at once: PGlite has no autovacuum to
  // do this later, and PostgreSQL's comes only after a while
  for (const entity of model.entities.values()) {
    if (entity.storage !== undefined) continue; // a virtual entity has no table
    await db.query({ sql: `ANALYZE ${tableName(entity)}`, params: [] });
  }
  progress?.stop();
  return { seeded: true, records };
}
