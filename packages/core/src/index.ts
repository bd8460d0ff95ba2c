/**
 * @bizdata/core: the entity-definition DSL, typed records, derived validation, methods, user
 * prompts, the write pipeline and the storage an application and the other packages build on
 * (tables derived from definitions, schema migration, tenant scoping, `openDatabase`). The
 * database drivers have entry points of their own: `@bizdata/core/pglite`, `@bizdata/core/postgres`.
 *
 * @example
 * const Product = entity("Product", { naturalKey: "SKU", fields: { SKU: text({ required: true }) } });
 * const model = defineModel([Product]);
 * const db = await openDatabase({ url: process.env.DATABASE_URL });
 * await migrate(db, model);
 */
export { BoundedMap } from "./bounded-map.js";
export {
  type ChangePosition,
  type ChangeRange,
  type ChangeRow,
  changedSince,
  changeWatermark,
  type HistoryQuery,
  isTransactionId,
  readChanges,
  readHistory,
} from "./changes/change-reads.js";
export { type ChangeAuthor, type ChangeSource, changeSource, ownerColumn } from "./changes/change-source.js";
export { CHANGE_TABLE, type ChangeKind, changeTable, xid8 } from "./changes/change-table.js";
export { cascadedItems, createdValues, logWritten, valuesJson, type WrittenRows } from "./changes/logged-writes.js";
export { PRUNE_MARGIN_SECONDS, pruneChanges } from "./changes/prune-changes.js";
export * from "./errors.js";
export * from "./methods/index.js";
export * from "./model/entity.js";
export * from "./model/fields.js";
export type * from "./model/hook-context.js";
export type * from "./model/hooks.js";
export * from "./model/model.js";
export type { FieldGroup, Presentation } from "./model/presentation.js";
export type { EntityRef, ReadRecord } from "./model/typed-read.js";
export * from "./prompts/prompt-collector.js";
export type * from "./prompts/prompts.js";
export { RAISE_MALLOC_THRESHOLDS } from "./storage/backend-heap.js";
export type { Database, Row, Session, SqlQuery, Statement, TransactionOptions } from "./storage/database.js";
export { toQuery, watchStatements } from "./storage/database.js";
export { durationText, intervalInput } from "./storage/interval-text.js";
export { type MigrateOptions, type MigrationReport, migrate } from "./storage/migrate.js";
export {
  type ColumnMapping,
  columnOf,
  FIRST_VERSION,
  persistedColumns,
  TENANT_COLUMN,
  tableName,
  VERSION_COLUMN,
} from "./storage/naming.js";
export { describeDatabase, type OpenOptions, openDatabase, type StoreOptions } from "./storage/open-database.js";
export { type GateRefusals, PoolGate } from "./storage/pool-gate.js";
export type { PoolStats } from "./storage/pool-usage.js";
export { defaultPostgresOptions, type PostgresOptions } from "./storage/postgres-options.js";
export {
  defaultReplicaSettings,
  type PoolReport,
  type ReadRouting,
  type ReplicaSettings,
  routeReads,
} from "./storage/read-replicas.js";
export { type RecordStore, type StoredRecord, withStore } from "./storage/record-port.js";
export { assignPath, collectionsOf, fromColumnValue, rowToRecord } from "./storage/record-rows.js";
export {
  baseStore,
  insertRecords,
  loadRecords,
  recordSelectList,
  recordVersion,
  tableStore,
} from "./storage/record-store.js";
export type { ReplicaState } from "./storage/replica-freshness.js";
export { missingTables } from "./storage/schema-check.js";
export { SEARCH_CONFIGURATION, searchColumns, searchDocument } from "./storage/search-document.js";
export { asJson, inBaseImage, stagedChanged } from "./storage/staged-changes.js";
export { stagedSession, stagedStore } from "./storage/staged-store.js";
export {
  BASE_IMAGE_COLUMN,
  BASE_VERSION_COLUMN,
  DELETED_COLUMN,
  stagedTableName,
  WORKFLOW_COLUMN,
} from "./storage/staged-tables.js";
export { type ReadAs, relation, type StagedView, versionText } from "./storage/staged-view.js";
export { tenantFeatureTable, tenantTable } from "./storage/system-tables.js";
export { tableQueries } from "./storage/table-queries.js";
/** for the tables other packages own: the tenant column */
export { tenantColumn } from "./storage/tenant-column.js";
export { loadTenant } from "./storage/tenant-features.js";
/** for the tables other packages own: the role row-level security applies to, and the tenant policy */
export { APP_ROLE, tenantPolicy } from "./storage/tenant-policy.js";
export { inTenant, isTenantId, type TenantTransactionOptions } from "./storage/tenant-scope.js";
export {
  databaseErrorOf,
  isTransientDatabaseError,
  isUnreachableDatabaseError,
} from "./storage/transient-errors.js";
export { type WriteBehind, writeBehind, writeThrough } from "./storage/write-behind.js";
export * from "./unit-of-work.js";
export * from "./validation/index.js";
export * from "./write/index.js";
