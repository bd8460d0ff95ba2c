/**
 * `migrate`: creates or upgrades the schema of a model (entity tables plus the framework's own)
 * in one transaction, serialized by an advisory lock so that several hosts or test workers can
 * start against one database at once.
 */
import type { Model } from "../model/model.js";
import type { Database } from "./database.js";
import { modelTables } from "./entity-tables.js";
import { stagedTables, workflowPromptTable, workflowTable } from "./staged-tables.js";
import { systemTables } from "./system-tables.js";
import { tableDdl } from "./table-ddl.js";
import { APP_ROLE } from "./tenant-policy.js";

const MIGRATION_LOCK = 0x62697a64; // "bizd"

export function migrationStatements(model: Model): string[] {
  const ddl = [...systemTables, workflowTable, workflowPromptTable, ...modelTables(model), ...stagedTables(model)].map(
    tableDdl,
  );
  return [
    // roles are cluster-wide: create once, tolerate a concurrent creator
    // (checked first, so that an owner without CREATEROLE can migrate once the role exists)
    `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${APP_ROLE}') THEN CREATE ROLE ${APP_ROLE} NOLOGIN; END IF; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
    ...ddl.flatMap((d) => d.create),
    ...ddl.flatMap((d) => d.constraints),
    ...ddl.flatMap((d) => d.security),
    `GRANT USAGE ON SCHEMA public TO ${APP_ROLE}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${APP_ROLE}`,
    // a non-superuser owner must be a member to switch to the role per transaction
    `DO $$ BEGIN IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user); END IF; END $$`,
  ];
}

/** Creates or upgrades the schema; safe to run any number of times, concurrently. */
export async function migrate(db: Database, model: Model): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query({ sql: "SELECT pg_advisory_xact_lock($1)", params: [MIGRATION_LOCK] });
    for (const statement of migrationStatements(model)) await tx.query({ sql: statement, params: [] });
  });
}
