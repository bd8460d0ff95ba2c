/**
 * What a workflow's statements read: its staged after-images laid over the base rows, minus its
 * tombstones, as one derived table per entity. Every read inside a workflow (single reads,
 * filters, expands, aggregates, natural-key lookups, business logic) goes through it, so all of
 * them see the staged state, and a read costs what the staged rows of that entity cost, not the
 * number of requests before it.
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { AnyEntity } from "../model/model.js";
import { persistedColumns, TENANT_COLUMN, tableName } from "./naming.js";
import { DELETED_COLUMN, stagedTableName, WORKFLOW_COLUMN } from "./staged-tables.js";

/** the workflow whose staged state a session sees; a placeholder in statements compiled for any workflow */
export interface StagedView {
  readonly workflowId: string | Placeholder;
}

const id = (name: string) => sql.identifier(name);

/** the relation to read an entity from: its table, or the overlay of a workflow's staged rows */
export function relation(def: AnyEntity, view: StagedView | undefined): SQL {
  const table = id(tableName(def));
  const staged = id(stagedTableName(def));
  const columns = (alias: string) =>
    sql.join(
      [TENANT_COLUMN, ...persistedColumns(def).map((c) => c.column)].map((c) => sql`${id(alias)}.${id(c)}`),
      sql`, `,
    );
  if (def.storage !== undefined) {
    // a virtual entity has no table: outside a workflow it reads as empty, inside one as its staged records
    const workflow = view === undefined ? sql`NULL::uuid` : sql`${view.workflowId}::uuid`;
    return sql`(SELECT ${columns("s")} FROM ${staged} AS s WHERE s.${id(WORKFLOW_COLUMN)} = ${workflow} AND NOT s.${id(DELETED_COLUMN)})`;
  }
  if (view === undefined) return sql`${table}`;
  const workflow = sql`${view.workflowId}::uuid`;
  return sql`(SELECT ${columns("b")} FROM ${table} AS b WHERE NOT EXISTS (SELECT 1 FROM ${staged} AS s WHERE s.${id(TENANT_COLUMN)} = b.${id(TENANT_COLUMN)} AND s.${id(WORKFLOW_COLUMN)} = ${workflow} AND s.guid = b.guid) UNION ALL SELECT ${columns("s")} FROM ${staged} AS s WHERE s.${id(WORKFLOW_COLUMN)} = ${workflow} AND NOT s.${id(DELETED_COLUMN)})`;
}
