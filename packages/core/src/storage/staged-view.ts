/**
 * What a workflow's statements read: its staged after-images laid over the base rows, minus its
 * tombstones, as one derived table per entity. Every read inside a workflow (single reads,
 * filters, expands, aggregates, natural-key lookups, business logic) goes through it, so all of
 * them see the staged state, and a read costs what the staged rows of that entity cost, not the
 * number of requests before it.
 *
 * Every relation also carries `row_version`, the version a record's ETag is made of (versionText):
 * a base row's own version; in a workflow, a staged record's `<main>+<n>` — the version of the
 * main record now (the one it was first staged against when the main record is gone, 0 for a new
 * record) and how often the workflow staged it. So the ETag changes with every staging and with
 * every change of the main record underneath, and a client that sends the current one back has
 * seen both (a staged change made with it is re-based on that main version: staged-store.ts).
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { AnyEntity } from "../model/model.js";
import { persistedColumns, TENANT_COLUMN, tableName, VERSION_COLUMN } from "./naming.js";
import { BASE_VERSION_COLUMN, DELETED_COLUMN, stagedTableName, WORKFLOW_COLUMN } from "./staged-tables.js";

/** the workflow whose staged state a session sees; a placeholder in statements compiled for any workflow */
export interface StagedView {
  readonly workflowId: string | Placeholder;
}

const id = (name: string) => sql.identifier(name);

/** the version of the record at `alias` of a `relation`, as text: what its ETag says */
export const versionText = (alias: string): SQL => sql`${id(alias)}.${id(VERSION_COLUMN)}::text`;

/**
 * How a relation is read: `scanned`, whole or narrowed by conditions on its own columns (a count,
 * an aggregate, a record by its key), or `indexed`: its records reached through its indexes by the
 * key of each row joined to it (a to-one expand or path) or in index order until a page is full.
 * The overlay of a scan hides the staged base rows by an anti join, which reads the base table once
 * for the whole statement, or probes the staged rows by key where the statement's conditions narrow
 * the base rows to a few. An indexed overlay must let PostgreSQL reach a base row through the base
 * table's indexes, which it can only do in a UNION ALL whose base branch is the bare table: the
 * hiding check then comes after the union, per row found, against a hash of every staged key of the
 * workflow. A workflow's page of order lines with their product expanded read every product of the
 * tenant through the scan's form (0.5 s at the bench's data, 1.6 s at ten times it).
 */
export type ReadAs = "scanned" | "indexed";

/** the relation to read an entity from: its table, or the overlay of a workflow's staged rows */
export function relation(def: AnyEntity, view: StagedView | undefined, readAs: ReadAs = "scanned"): SQL {
  const table = id(tableName(def));
  const staged = id(stagedTableName(def));
  const names = [TENANT_COLUMN, ...persistedColumns(def).map((c) => c.column)];
  const columns = (alias: string, more: readonly string[] = []) =>
    sql.join(
      [...names, ...more].map((c) => sql`${id(alias)}.${id(c)}`),
      sql`, `,
    );
  const stagedVersion = (main: SQL) => sql`concat(${main}, '+', s.${id(VERSION_COLUMN)}) AS ${id(VERSION_COLUMN)}`;
  if (def.storage !== undefined) {
    // a virtual entity has no table: outside a workflow it reads as empty, inside one as its staged records
    const workflow = view === undefined ? sql`NULL::uuid` : sql`${view.workflowId}::uuid`;
    return sql`(SELECT ${columns("s")}, ${stagedVersion(sql`0`)} FROM ${staged} AS s WHERE s.${id(WORKFLOW_COLUMN)} = ${workflow} AND NOT s.${id(DELETED_COLUMN)})`;
  }
  if (view === undefined) return sql`${table}`;
  const workflow = sql`${view.workflowId}::uuid`;
  const main = sql`coalesce((SELECT m.${id(VERSION_COLUMN)} FROM ${table} AS m WHERE m.${id(TENANT_COLUMN)} = s.${id(TENANT_COLUMN)} AND m.guid = s.guid), s.${id(BASE_VERSION_COLUMN)}, 0)`;
  const isStaged = (alias: string) =>
    sql`EXISTS (SELECT 1 FROM ${staged} AS s WHERE s.${id(TENANT_COLUMN)} = ${id(alias)}.${id(TENANT_COLUMN)} AND s.${id(WORKFLOW_COLUMN)} = ${workflow} AND s.guid = ${id(alias)}.guid)`;
  const stagedRows = (marked: SQL) =>
    sql`SELECT ${columns("s")}, ${stagedVersion(main)}${marked} FROM ${staged} AS s WHERE s.${id(WORKFLOW_COLUMN)} = ${workflow} AND NOT s.${id(DELETED_COLUMN)}`;
  if (readAs === "indexed")
    return sql`(SELECT ${columns("u", [VERSION_COLUMN])} FROM (SELECT ${columns("b")}, b.${id(VERSION_COLUMN)}::text AS ${id(VERSION_COLUMN)}, false AS staged FROM ${table} AS b UNION ALL ${stagedRows(sql`, true`)}) AS u WHERE u.staged OR NOT ${isStaged("u")})`;
  return sql`(SELECT ${columns("b")}, b.${id(VERSION_COLUMN)}::text AS ${id(VERSION_COLUMN)} FROM ${table} AS b WHERE NOT ${isStaged("b")} UNION ALL ${stagedRows(sql``)})`;
}
