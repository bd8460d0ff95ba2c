/**
 * Loads records into one tenant in bulk: one `unnest` statement per batch, twenty batches per
 * transaction (big enough to amortize commits, small enough to keep memory flat), and fresh
 * planner statistics at the end. What a seed uses for volumes the write pipeline would take minutes
 * over; the records go in as given, with no hooks, logic or natural-key resolution, but held to
 * their properties' constraints as any write is (a batch that breaks one is refused before its
 * transaction: what earlier transactions loaded stays).
 */
import {
  checkNewRecords,
  type Database,
  insertRecords,
  inTenant,
  type Model,
  type Session,
  tableName,
} from "@bizdata/core";
import { consoleProgress } from "./console-progress.js";

/** records of one entity, shaped as stored: references as Guids, complex values nested, no collections */
export interface RecordBatch {
  readonly entity: string;
  readonly records: readonly Record<string, unknown>[];
}

export interface BulkInsertOptions {
  /**
   * The batches' references are consistent by construction (every referenced record comes in an
   * earlier batch or exists): a superuser then loads without the per-row foreign-key triggers,
   * 5-20x faster. Anyone else loads with the checks.
   */
  readonly trustedReferences?: boolean;
  /** the number of records to expect: with it, a progress bar on a terminal */
  readonly total?: number;
  /** the progress bar's label */
  readonly label?: string;
}

const BATCHES_PER_TRANSACTION = 20;

/** only a superuser may switch foreign-key triggers off */
async function isSuperuser(db: Database): Promise<boolean> {
  const [row] = await db.query<{ rolsuper: boolean }>({
    sql: "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
    params: [],
  });
  return row?.rolsuper === true;
}

/** Inserts the batches in order into `tenantId`; returns the number of records inserted. */
export async function bulkInsert(
  db: Database,
  model: Model,
  tenantId: string,
  batches: Iterable<RecordBatch>,
  options: BulkInsertOptions = {},
): Promise<number> {
  const entityOf = (name: string) => {
    const def = model.entity(name);
    if (def === undefined || def.storage !== undefined)
      throw new Error(`bulkInsert: "${name}" is not a stored entity of the model.`);
    return def;
  };
  const progress =
    options.total === undefined ? undefined : consoleProgress(options.label ?? `loading ${tenantId}`, options.total);
  const unchecked = options.trustedReferences === true && (await isSuperuser(db));
  const loaded = new Set<string>();
  let records = 0;
  let pending: RecordBatch[] = [];
  const flush = async () => {
    const chunk = pending;
    pending = [];
    const load = async (tx: Session) => {
      for (const batch of chunk) {
        await insertRecords(tx, entityOf(batch.entity), tenantId, batch.records);
        progress?.advance(batch.records.length);
      }
    };
    if (!unchecked) return inTenant(db, tenantId, load);
    return db.transaction(async (tx) => {
      await tx.query({ sql: "SET LOCAL session_replication_role = replica", params: [] });
      await load(tx);
    });
  };
  for (const batch of batches) {
    checkNewRecords(model, entityOf(batch.entity), batch.records);
    loaded.add(batch.entity);
    pending.push(batch);
    records += batch.records.length;
    if (pending.length >= BATCHES_PER_TRANSACTION) await flush();
  }
  await flush();
  // fresh statistics, so the planner sees the loaded sizes at once: PGlite has no autovacuum to
  // do this later, and PostgreSQL's comes only after a while
  for (const name of loaded) await db.query({ sql: `ANALYZE ${tableName(entityOf(name))}`, params: [] });
  progress?.stop();
  return records;
}
