/**
 * What a host module's `seed` works with: tenant, user and feature administration and bulk loading
 * over one open, migrated database, so an application's seed needs nothing of the host's insides.
 */
import { type Database, inTenant, type Model, tableName } from "@bizdata/core";
import { createTenant, setFeature, setUser, tenantExists } from "../tenants/tenant-admin.js";
import { type BulkInsertOptions, bulkInsert, type RecordBatch } from "./bulk-insert.js";

export interface AdminContext {
  readonly db: Database;
  readonly model: Model;
  /** creates the tenant if it does not exist; resolves to whether it was created */
  createTenant(id: string, name?: string): Promise<boolean>;
  tenantExists(id: string): Promise<boolean>;
  /** creates a user, or sets the password and roles of an existing one */
  setUser(tenantId: string, username: string, password: string, roles: readonly string[]): Promise<void>;
  setFeature(tenantId: string, feature: string, enabled: boolean): Promise<void>;
  /** the number of stored records of an entity in the tenant (a seed checks it to stay idempotent) */
  countRecords(tenantId: string, entity: string): Promise<number>;
  /** inserts batches of stored-shape records into the tenant; resolves to the number inserted */
  bulkInsert(tenantId: string, batches: Iterable<RecordBatch>, options?: BulkInsertOptions): Promise<number>;
}

/**
 * @example
 * const admin = adminContext(db, model);
 * await admin.createTenant("acme", "Acme Ltd");
 * await admin.setUser("acme", "alice", "s3cret!", ["admin"]);
 */
export function adminContext(db: Database, model: Model): AdminContext {
  return {
    db,
    model,
    createTenant: (id, name) => createTenant(db, id, name),
    tenantExists: (id) => tenantExists(db, id),
    setUser: (tenantId, username, password, roles) => setUser(db, tenantId, username, password, roles),
    setFeature: (tenantId, feature, enabled) => setFeature(db, tenantId, feature, enabled),
    async countRecords(tenantId, entity) {
      const def = model.entity(entity);
      if (def === undefined || def.storage !== undefined)
        throw new Error(`countRecords: "${entity}" is not a stored entity of the model.`);
      const [row] = await inTenant(db, tenantId, (tx) =>
        tx.query<{ n: number }>({
          sql: `SELECT count(*)::int AS n FROM ${tableName(def)} WHERE tenant_id = $1`,
          params: [tenantId],
        }),
      );
      return row?.n ?? 0;
    },
    bulkInsert: (tenantId, batches, options) => bulkInsert(db, model, tenantId, batches, options),
  };
}
