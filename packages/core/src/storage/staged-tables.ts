/**
 * Staged state of workflows (architecture: "staged state as an overlay"): per entity a table of
 * after-images and tombstones keyed by (tenant, workflow, Guid), and the workflows themselves.
 * A workflow's reads overlay its staged rows on the base tables (staged-view.ts); commit applies
 * them to the base tables in one transaction and clears them.
 */
import { boolean, index, integer, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { AnyEntity, Model } from "../model/model.js";
import { columnBuilders, type EntityTable } from "./entity-tables.js";
import { TENANT_COLUMN, tableName } from "./naming.js";
import { APP_ROLE, tenantPolicy } from "./tenant-policy.js";

export const WORKFLOW_COLUMN = "workflow_id";
export const DELETED_COLUMN = "deleted";

export const stagedTableName = (def: AnyEntity): string => `${tableName(def)}__staged`;

const cache = new WeakMap<AnyEntity, EntityTable>();

/** the staged twin of an entity's table: the same columns plus the workflow and a tombstone flag */
export function stagedTable(def: AnyEntity): EntityTable {
  const cached = cache.get(def);
  if (cached) return cached;
  const name = stagedTableName(def);
  const table = pgTable(
    name,
    {
      ...columnBuilders(def),
      [WORKFLOW_COLUMN]: uuid(WORKFLOW_COLUMN).notNull(),
      [DELETED_COLUMN]: boolean(DELETED_COLUMN).notNull().default(false),
    },
    (t: Record<string, any>) => [
      primaryKey({ name: `${name}_pkey`, columns: [t[TENANT_COLUMN], t[WORKFLOW_COLUMN], t.guid] }),
      pgPolicy(`${name}_tenant`, { for: "all", to: APP_ROLE, ...tenantPolicy(TENANT_COLUMN) }),
    ],
  ).enableRLS() as unknown as EntityTable;
  cache.set(def, table);
  return table;
}

export const stagedTables = (model: Model): EntityTable[] => [...model.entities.values()].map(stagedTable);

export const workflowTable = pgTable(
  "bizdata_workflow",
  {
    tenantId: text("tenant_id").notNull(),
    id: uuid("id").notNull(),
    /** the user who created it: only they can use it (spec 5.5) */
    owner: text("owner").notNull(),
    stagingKey: text("staging_key"),
    nextIndex: integer("next_index").notNull().default(1),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    closed: boolean("closed").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "bizdata_workflow_pkey", columns: [t.tenantId, t.id] }),
    index("bizdata_workflow_staging_key_idx").on(t.tenantId, t.owner, t.stagingKey),
    pgPolicy("bizdata_workflow_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

/** questions raised in a workflow and their answers (spec 3.2): a pending one blocks commit */
export const workflowPromptTable = pgTable(
  "bizdata_workflow_prompt",
  {
    tenantId: text("tenant_id").notNull(),
    workflowId: uuid("workflow_id").notNull(),
    id: uuid("id").notNull(),
    /** the question's key and group: the same logic asking again finds the same question */
    key: text("key").notNull(),
    groupKey: text("group_key").notNull(),
    text: text("text").notNull(),
    severity: text("severity").notNull(),
    /** `[{key,label}]` as JSON text */
    choices: text("choices").notNull(),
    defaultChoice: text("default_choice").notNull(),
    answer: text("answer"),
    /** a method call deferred behind this question (AskUser), as JSON, run when the answer is "accept" */
    payload: text("payload"),
  },
  (t) => [
    primaryKey({ name: "bizdata_workflow_prompt_pkey", columns: [t.tenantId, t.id] }),
    index("bizdata_workflow_prompt_key_idx").on(t.tenantId, t.workflowId, t.key, t.groupKey),
    pgPolicy("bizdata_workflow_prompt_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();
