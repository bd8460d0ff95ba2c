/**
 * Free-text search (`$search`) over the text properties an entity declares `searchable`: one
 * document per record, the searchable values joined by blanks, as PostgreSQL's `tsvector` under
 * the `simple` configuration (lower-cased words, no stemming or stop words: the same in every
 * language). The migration indexes exactly this expression (GIN, led by the tenant where
 * btree_gin is available) and queries compare with exactly this expression, which is what lets
 * PostgreSQL use the index; so both build it here.
 */
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { AnyEntity, Model } from "../model/model.js";
import {
  type ColumnMapping,
  persistedColumns,
  quoteIdentifier,
  quoteLiteral,
  TENANT_COLUMN,
  tableName,
} from "./naming.js";

/** the text search configuration of every search document and query */
export const SEARCH_CONFIGURATION = "simple";

/**
 * The columns of an entity's searchable text properties (complex members included), in
 * declaration order; none for a virtual entity, which has no table to search.
 */
export const searchColumns = (def: AnyEntity): ColumnMapping[] =>
  def.storage !== undefined
    ? []
    : persistedColumns(def).filter((c) => c.field.kind === "text" && c.field.searchable === true);

/**
 * The search document of a record: `column` gives each searchable column as SQL (qualified by a
 * table alias in a query, bare in the index).
 */
export const searchDocument = (columns: readonly ColumnMapping[], column: (c: ColumnMapping) => SQL): SQL =>
  sql`to_tsvector(${sql.raw(`'${SEARCH_CONFIGURATION}'`)}::regconfig, ${sql.join(
    columns.map((c) => sql`coalesce(${column(c)}, '')`),
    sql` || ' ' || `,
  )})`;

const dialect = new PgDialect();

/** the search document of an entity as index DDL: statement text, no parameters */
function indexExpression(columns: readonly ColumnMapping[]): string {
  const { sql: text, params } = dialect.sqlToQuery(searchDocument(columns, (c) => sql`${sql.identifier(c.column)}`));
  if (params.length > 0) throw new Error("A search document cannot carry parameters.");
  return text;
}

/**
 * Creates btree_gin where the server offers it and the migrating role may (PGlite loads it; it
 * is a trusted extension from PostgreSQL 13 on), so that search indexes can lead with the tenant.
 * Without it they index the document alone.
 */
export const SEARCH_EXTENSION_STATEMENT = `DO $$ BEGIN IF EXISTS (SELECT FROM pg_available_extensions WHERE name = 'btree_gin') AND NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'btree_gin') THEN CREATE EXTENSION btree_gin; END IF; EXCEPTION WHEN OTHERS THEN NULL; END $$`;

/**
 * The search index of an entity, and the removal of one made for other searchable properties:
 * the name carries a hash of the indexed expression, so a changed declaration gets a new index
 * and the stale one goes (an index holds no data). An entity without searchable properties only
 * loses a stale one. Idempotent.
 */
export function searchIndexStatement(def: AnyEntity): string {
  const table = tableName(def);
  const columns = searchColumns(def);
  const expression = columns.length === 0 ? undefined : indexExpression(columns);
  const prefix = `${table}_search_`;
  const name =
    expression === undefined
      ? undefined
      : `${prefix.slice(0, 54)}${createHash("sha1").update(expression).digest("hex").slice(0, 8)}`;
  const stale = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ${quoteLiteral(table)} AND indexname LIKE ${quoteLiteral(`${prefix.slice(0, 54).replace(/[\\_%]/g, "\\$&")}%`)}${name === undefined ? "" : ` AND indexname <> ${quoteLiteral(name)}`}`;
  const create =
    name === undefined
      ? ""
      : ` IF EXISTS (SELECT FROM pg_extension WHERE extname = 'btree_gin') THEN CREATE INDEX IF NOT EXISTS ${quoteIdentifier(name)} ON ${quoteIdentifier(table)} USING gin (${quoteIdentifier(TENANT_COLUMN)}, (${expression})); ELSE CREATE INDEX IF NOT EXISTS ${quoteIdentifier(name)} ON ${quoteIdentifier(table)} USING gin ((${expression})); END IF;`;
  return `DO $$ DECLARE stale record; BEGIN FOR stale IN ${stale} LOOP EXECUTE format('DROP INDEX %I', stale.indexname); END LOOP;${create} END $$`;
}

/** whether any stored entity of the model is searchable */
export const hasSearch = (model: Model): boolean =>
  [...model.entities.values()].some((def) => searchColumns(def).length > 0);
