/**
 * The tables core itself needs: tenants and their features (and the change log, change-table.ts). Like entity tables they lead with the
 * tenant and are guarded by row-level security. Other packages own theirs (workflows in
 * @bizdata/workflow, users and tokens in @bizdata/host) and hand them to `migrate`.
 */
import { pgPolicy, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { changeTable } from "../changes/change-table.js";
import { tenantColumn } from "./tenant-column.js";
import { APP_ROLE, tenantPolicy } from "./tenant-policy.js";

export const tenantTable = pgTable(
  "bizdata_tenant",
  {
    id: tenantColumn("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  () => [pgPolicy("bizdata_tenant_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("id") })],
).enableRLS();

export const tenantFeatureTable = pgTable(
  "bizdata_tenant_feature",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    feature: text("feature").notNull(),
  },
  (t) => [
    primaryKey({ name: "bizdata_tenant_feature_pkey", columns: [t.tenantId, t.feature] }),
    pgPolicy("bizdata_tenant_feature_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

/** the tables core itself queries: tenants and their features, and the change log */
export const systemTables = [tenantTable, tenantFeatureTable, changeTable] as const;
