/**
 * Where an import keeps how far it got (`bizdata import`): one row per tenant and import, moved
 * on in the same transaction that stores each chunk, so what it says is imported is exactly what
 * the tenant holds. A resumed import starts after `lines_done` and cannot load a row twice.
 */
import { APP_ROLE, tenantColumn, tenantPolicy } from "@bizdata/core";
import { integer, pgPolicy, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

export const importTable = pgTable(
  "bizdata_import",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    /** the entity and the SHA-256 of the file: the same file into the same entity is the same import */
    importId: text("import_id").notNull(),
    entity: text("entity").notNull(),
    file: text("file").notNull(),
    /** the last line of the file whose chunk is stored */
    linesDone: integer("lines_done").notNull().default(0),
    loaded: integer("loaded").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    /** `running`, `failed` (with `error`) or `done` */
    status: text("status").notNull(),
    error: text("error"),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "bizdata_import_pkey", columns: [t.tenantId, t.importId] }),
    pgPolicy("bizdata_import_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

export const importTables = [importTable];
