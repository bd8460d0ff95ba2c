/**
 * The change log rows of a write, appended by the statement that writes (change-table.ts): the
 * write is a data-modifying CTE (`WITH r AS (INSERT … RETURNING *)`) and the statement inserts a
 * log row for each row it returns. So a write costs no statement and no round trip more than
 * without the log (a create on a tenant session is still one statement, atomic without a
 * transaction), and the log holds exactly what the write did: a record that an update or a delete
 * did not find has no row, and what rolls back takes its rows with it.
 *
 * A delete also logs the owned items it takes with it (their foreign keys cascade): every level of
 * items is read in the same statement, which sees them as they were before it ran.
 */
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { AnyEntity } from "../model/model.js";
import { durationText } from "../storage/interval-text.js";
import {
  type ColumnMapping,
  columnOf,
  perEntity,
  persistedColumns,
  quoteIdentifier as q,
  quoteLiteral,
  TENANT_COLUMN,
  tableName,
} from "../storage/naming.js";
import { collectionsOf } from "../storage/record-rows.js";
import type { ChangeSource } from "./change-source.js";
import { CHANGE_TABLE, type ChangeKind } from "./change-table.js";

const dialect = new PgDialect();

/** the log's columns a write fills; the transaction, the sequence and the time come from their defaults */
const LOG_COLUMNS = ["tenant_id", "entity", "key", "owner", "kind", "properties", "data", "actor", "request_id"]
  .map(q)
  .join(", ");

const LOG_INSERT = `INSERT INTO ${q(CHANGE_TABLE)} (${LOG_COLUMNS})`;

/** a column of the rows at `alias` as the API writes it: durations in their wire form */
function valueText(alias: string, c: ColumnMapping): string {
  const column = `${q(alias)}.${q(c.column)}`;
  return c.field.kind === "duration" ? dialect.sqlToQuery(durationText(sql.raw(column))).sql : column;
}

/** an entity's columns grouped by the top-level property they belong to, in declaration order */
const columnsByProperty = perEntity((def: AnyEntity) => {
  const groups = new Map<string, ColumnMapping[]>();
  for (const c of persistedColumns(def)) {
    const group = groups.get(c.path[0]!);
    if (group === undefined) groups.set(c.path[0]!, [c]);
    else group.push(c);
  }
  return groups;
});

/**
 * The values of the rows at `alias` as one JSON object by property name (complex values nested),
 * of the top-level `properties` given, else of all: what the log keeps of an entity whose
 * `changeLog` is `values`. Built by `row_to_json` of a subquery, which takes any number of columns.
 */
export function valuesJson(def: AnyEntity, alias: string, properties?: Iterable<string>): string {
  const groups = columnsByProperty(def);
  const members: string[] = [];
  for (const name of properties ?? groups.keys()) {
    const columns = groups.get(name);
    if (columns === undefined) continue;
    if (columns[0]!.path.length === 1) members.push(`${valueText(alias, columns[0]!)} AS ${q(name)}`);
    else {
      const inner = columns.map((c) => `${valueText(alias, c)} AS ${q(c.path[1]!)}`).join(", ");
      members.push(`(SELECT row_to_json(m) FROM (SELECT ${inner}) AS m) AS ${q(name)}`);
    }
  }
  return members.length === 0 ? "NULL::json" : `(SELECT row_to_json(v) FROM (SELECT ${members.join(", ")}) AS v)`;
}

/** what one log row of each row of a CTE says besides its author */
export interface WrittenRows {
  /** the CTE whose rows (every column of the entity's table) were written */
  readonly from: string;
  readonly def: AnyEntity;
  readonly kind: ChangeKind;
  /** the column of the rows that holds their owner, for an owned entity's */
  readonly owner?: string | undefined;
  /** the changed properties (`text[]`), for an update */
  readonly properties?: SQL;
  /** the logged values (JSON text of `valuesJson`), where the entity keeps them */
  readonly data?: string | undefined;
}

const ownerOf = (rows: WrittenRows) => (rows.owner === undefined ? "NULL::uuid" : `r.${q(rows.owner)}`);

/** the log rows of the written rows of one CTE, by the author of `source` */
function logSelect(tenantId: string, rows: WrittenRows, source: ChangeSource | undefined): SQL {
  const properties = rows.properties ?? sql`NULL::text[]`;
  return sql`SELECT ${tenantId}::text, ${rows.def.name}::text, r.guid, ${sql.raw(ownerOf(rows))}, ${rows.kind}::text, ${properties}, ${sql.raw(rows.data ?? "NULL::json")}, ${source?.actor ?? null}::text, ${source?.requestId ?? null}::text FROM ${sql.identifier(rows.from)} AS r`;
}

/** appends the log rows of every CTE of `written` */
export function logWritten(tenantId: string, written: readonly WrittenRows[], source: ChangeSource | undefined): SQL {
  return sql`${sql.raw(LOG_INSERT)} ${sql.join(
    written.map((rows) => logSelect(tenantId, rows, source)),
    sql` UNION ALL `,
  )}`;
}

/** the values a create logs of an entity's records, if it keeps them */
export const createdValues = (def: AnyEntity, alias: string): string | undefined =>
  def.changeLog === "values" ? valuesJson(def, alias) : undefined;

/**
 * The tail of an insert of `def`'s records, as the text the insert's own is (record-store.ts):
 * `$1` the tenant, `$author` and `$author + 1` the actor and the request id
 */
export function logInsertedText(def: AnyEntity, owner: string | undefined, author: number): string {
  const data = createdValues(def, "r") ?? "NULL::json";
  const ownerValue = owner === undefined ? "NULL::uuid" : `r.${q(owner)}`;
  return `${LOG_INSERT} SELECT $1, ${quoteLiteral(def.name)}, r.guid, ${ownerValue}, 'create', NULL::text[], ${data}, $${author}::text, $${author + 1}::text FROM r`;
}

/**
 * The owned items a delete of `def`'s rows in the CTE `from` takes with it, every level: a CTE
 * per collection over the rows of the level above, each with its rows' log entry
 */
export function cascadedItems(def: AnyEntity, from: string, tenantId: string): { ctes: SQL[]; rows: WrittenRows[] } {
  const ctes: SQL[] = [];
  const rows: WrittenRows[] = [];
  const visit = (owner: AnyEntity, ownerRows: string) => {
    for (const { field } of collectionsOf(owner)) {
      const item = field.target;
      const inverse = columnOf(item, [field.inverse])!.column;
      const name = `c${ctes.length}`;
      ctes.push(
        sql`${sql.identifier(name)} AS (SELECT i.* FROM ${sql.identifier(tableName(item))} AS i WHERE i.${sql.identifier(TENANT_COLUMN)} = ${tenantId} AND i.${sql.identifier(inverse)} IN (SELECT guid FROM ${sql.identifier(ownerRows)}))`,
      );
      rows.push({ from: name, def: item, kind: "delete", owner: inverse });
      visit(item, name);
    }
  };
  visit(def, from);
  return { ctes, rows };
}
