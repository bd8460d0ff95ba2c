/**
 * Staged state of workflows (architecture: "staged state as an overlay"): per entity a table of
 * after-images and tombstones keyed by (tenant, workflow, Guid); the workflows themselves are
 * @bizdata/workflow's tables.
 * A workflow's reads overlay its staged rows on the base tables (staged-view.ts); commit applies
 * them to the base tables in one transaction and clears them.
 */
import { bigint, boolean, json, pgPolicy, pgTable, primaryKey, uuid } from "drizzle-orm/pg-core";
import type { AnyEntity, Model } from "../model/model.js";
import { columnBuilders, type EntityTable } from "./entity-tables.js";
import { perEntity, TENANT_COLUMN, tableName, VERSION_COLUMN } from "./naming.js";
import { APP_ROLE, tenantPolicy } from "./tenant-policy.js";

export const WORKFLOW_COLUMN = "workflow_id";
export const DELETED_COLUMN = "deleted";
/** the version of the base row the first staged change of a record was made against; null for a new record */
export const BASE_VERSION_COLUMN = "base_version";
/** that base row as it was then (JSON by column), to tell at commit what changed in the main data since */
export const BASE_IMAGE_COLUMN = "base_image";

export const stagedTableName = (def: AnyEntity): string => `${tableName(def)}__staged`;

/** the staged twin of an entity's table: the same columns plus the workflow and a tombstone flag */
export const stagedTable = perEntity((def): EntityTable => {
  const name = stagedTableName(def);
  return pgTable(
    name,
    {
      ...columnBuilders(def),
      [WORKFLOW_COLUMN]: uuid(WORKFLOW_COLUMN).notNull(),
      [DELETED_COLUMN]: boolean(DELETED_COLUMN).notNull().default(false),
      [BASE_VERSION_COLUMN]: bigint(BASE_VERSION_COLUMN, { mode: "number" }),
      [BASE_IMAGE_COLUMN]: json(BASE_IMAGE_COLUMN),
      // how often the record was staged in the workflow: with the main record's version, what the
      // workflow's ETag of the record says (staged-view.ts)
      [VERSION_COLUMN]: bigint(VERSION_COLUMN, { mode: "number" }).notNull().default(1),
    },
    (t: Record<string, any>) => [
      primaryKey({ name: `${name}_pkey`, columns: [t[TENANT_COLUMN], t[WORKFLOW_COLUMN], t.guid] }),
      pgPolicy(`${name}_tenant`, { for: "all", to: APP_ROLE, ...tenantPolicy(TENANT_COLUMN) }),
    ],
  ).enableRLS() as unknown as EntityTable;
});

export const stagedTables = (model: Model): EntityTable[] => [...model.entities.values()].map(stagedTable);
