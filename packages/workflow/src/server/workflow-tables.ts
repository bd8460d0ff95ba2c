/**
 * The workflows themselves (architecture: staged state in PostgreSQL): who owns one, its staging
 * key, the next index and when it expires, and the questions raised in it. The staged records
 * are core's staged twin tables, written through the staged store.
 */
import { APP_ROLE, tenantColumn, tenantPolicy } from "@bizdata/core";
import { boolean, index, integer, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const workflowTable = pgTable(
  "bizdata_workflow",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
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
    tenantId: tenantColumn("tenant_id").notNull(),
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

/** every table of the workflow package, for `migrate` */
export const workflowTables = [workflowTable, workflowPromptTable] as const;
