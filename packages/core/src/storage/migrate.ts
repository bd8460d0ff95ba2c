/**
 * `migrate`: creates or upgrades the schema of a model (entity tables plus the framework's own)
 * in one transaction, serialized by an advisory lock so that several hosts or test workers can
 * start against one database at once.
 */
import type { PgTable } from "drizzle-orm/pg-core";
import type { AnyEntity, Model } from "../model/model.js";
import { type ByteOrderUpgrade, upgradeByteOrder } from "./byte-order-upgrade.js";
import type { Database } from "./database.js";
import { declaredIndexes, modelTables, referenceIndexes } from "./entity-tables.js";
import { quoteIdentifier, quoteLiteral, tableName } from "./naming.js";
import { hasSearch, SEARCH_EXTENSION_STATEMENT, searchIndexStatement } from "./search-document.js";
import { stagedTables } from "./staged-tables.js";
import { systemTables } from "./system-tables.js";
import { tableDdl } from "./table-ddl.js";
import { isLargeTable } from "./table-size.js";
import { APP_ROLE } from "./tenant-policy.js";

const MIGRATION_LOCK = 0x62697a64; // "bizd"

/**
 * Every table the schema of `model` has: core's own, `tables` (those of the other packages in
 * use, for example `workflowTables` of @bizdata/workflow, `authTables` of @bizdata/host), the
 * entities' and their staged copies.
 */
export const schemaTables = (model: Model, tables: readonly PgTable[] = []): PgTable[] => [
  ...systemTables,
  ...tables,
  ...modelTables(model),
  ...stagedTables(model),
];

/** the migration's statements, in the order they run: `create` first, then byte order (byte-order-upgrade.ts), then `rest` */
function migrationStatements(model: Model, tables: readonly PgTable[]) {
  const ddl = tables.map(tableDdl);
  const stored = [...model.entities.values()].filter((def) => def.storage === undefined);
  return {
    create: [
      // roles are cluster-wide: create once, tolerate a concurrent creator
      // (checked first, so that an owner without CREATEROLE can migrate once the role exists)
      `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN CREATE ROLE ${APP_ROLE} NOLOGIN; END IF; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
      ...ddl.flatMap((d) => d.create),
    ],
    rest: [
      ...stored.flatMap(coveredReferenceIndexDrops),
      ...ddl.flatMap((d) => d.constraints),
      // after the byte order: a policy that uses a column keeps it from being retyped
      ...ddl.flatMap((d) => d.security),
      ...(hasSearch(model) ? [SEARCH_EXTENSION_STATEMENT] : []),
      ...stored.map(searchIndexStatement),
      `GRANT USAGE ON SCHEMA public TO ${APP_ROLE}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${APP_ROLE}`,
      // the change log's sequence numbers its rows (change-table.ts)
      `GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${APP_ROLE}`,
      // a non-superuser owner must be a member to switch to the role per transaction
      `DO $$ BEGIN IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user); END IF; END $$`,
    ],
  };
}

/**
 * A reference's own index that a declared index now covers (entity-tables.ts `referenceIndexes`),
 * made by an earlier version of the model: dropped once the declared index is there and valid, so
 * that a failed concurrent build never leaves the reference without an index.
 */
function coveredReferenceIndexDrops(def: AnyEntity): string[] {
  return referenceIndexes(def).flatMap(({ name, coveredBy }) =>
    coveredBy === undefined
      ? []
      : [
          `DO $$ BEGIN IF EXISTS (SELECT FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${quoteLiteral(coveredBy)} AND i.indisvalid) THEN DROP INDEX IF EXISTS ${quoteIdentifier(name)}; END IF; END $$`,
        ],
  );
}

/**
 * Declared indexes that are missing on large tables, built with `CREATE INDEX CONCURRENTLY`
 * (PostgreSQL only; it cannot run inside the migration's transaction) so that adding an index
 * to a busy table does not lock out its writers for the whole build. The migration's own
 * `CREATE INDEX IF NOT EXISTS` then finds them there.
 */
async function buildLargeIndexesConcurrently(db: Database, model: Model): Promise<void> {
  if (db.driver !== "postgres") return;
  const declared = [...model.entities.values()]
    .filter((def) => def.storage === undefined)
    .flatMap((def) => declaredIndexes(def).map((ix) => ({ table: tableName(def), ...ix })));
  // one look at the catalog for all of them, at every start: the declared indexes that are
  // missing on tables that exist, with each table's estimate of its rows
  const missing = await db.query<{ table: string; index: string; rows: number }>({
    sql: `SELECT w.t AS "table", w.i AS "index", r.reltuples::float8 AS rows
          FROM unnest($1::text[], $2::text[]) AS w(t, i)
          JOIN pg_class r ON r.relname = w.t AND r.relkind = 'r'
          WHERE NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = w.i)`,
    params: [declared.map((d) => d.table), declared.map((d) => d.name)],
  });
  const large = new Map<string, boolean>();
  for (const { table, index, rows } of missing) {
    if (!large.has(table)) large.set(table, await isLargeTable(db, table, rows));
    if (!large.get(table)) continue;
    const columns = declared
      .find((d) => d.name === index)!
      .columns.map(quoteIdentifier)
      .join(", ");
    await db.query({
      sql: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${quoteIdentifier(index)} ON ${quoteIdentifier(table)} (${columns})`,
      params: [],
    });
  }
}

export interface MigrateOptions {
  /**
   * Also convert the tenant columns of large tables that an earlier version made in the
   * database's collation (byte-order-upgrade.ts): each such table is locked while its indexes are
   * rebuilt, so do it at a quiet hour. Without it those tables keep their columns (and work).
   */
  readonly convertLargeTables?: boolean;
}

/** what a migration left for an operator to decide */
export interface MigrationReport {
  /** the tables whose tenant columns got their byte order */
  readonly converted: ByteOrderUpgrade["converted"];
  /** large tables whose tenant columns still compare in the database's collation (MigrateOptions.convertLargeTables) */
  readonly largeTablesLeft: ByteOrderUpgrade["left"];
  /** tables whose tenant columns a view or a policy of the application's own uses, which keeps them from converting */
  readonly conversionsBlocked: ByteOrderUpgrade["blocked"];
}

/** Creates or upgrades the schema; safe to run any number of times, concurrently. */
export async function migrate(
  db: Database,
  model: Model,
  tables: readonly PgTable[] = [],
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  await buildLargeIndexesConcurrently(db, model);
  return db.transaction(async (tx) => {
    // the serving timeouts are not for this: the lock waits for other hosts' migrations, and
    // adding an index to a big table may take long
    await tx.query({
      sql: "SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true)",
      params: [],
    });
    await tx.query({ sql: "SELECT pg_advisory_xact_lock($1)", params: [MIGRATION_LOCK] });
    const all = schemaTables(model, tables);
    const { create, rest } = migrationStatements(model, all);
    for (const statement of create) await tx.query({ sql: statement, params: [] });
    const upgrade = await upgradeByteOrder(tx, all, options.convertLargeTables ?? false);
    for (const statement of rest) await tx.query({ sql: statement, params: [] });
    return { converted: upgrade.converted, largeTablesLeft: upgrade.left, conversionsBlocked: upgrade.blocked };
  });
}
