/**
 * Reading and writing whole records of one tenant: point loads, bulk inserts and updates by
 * Guid. Callers run these inside `inTenant`, and every statement also names the tenant itself.
 */
import { type SQL, sql } from "drizzle-orm";
import { ownerColumn } from "../changes/change-source.js";
import { cascadedItems, logInsertedText, logWritten, valuesJson } from "../changes/logged-writes.js";
import type { AnyEntity } from "../model/model.js";
import type { Session, SqlQuery } from "./database.js";
import { durationText } from "./interval-text.js";
import { perEntity, persistedColumns, quoteIdentifier, TENANT_COLUMN, tableName, VERSION_COLUMN } from "./naming.js";
import type { RecordStore } from "./record-port.js";
import { columnValue, recordColumns, rowToRecord } from "./record-rows.js";
import { relation, type StagedView, versionText } from "./staged-view.js";

export const sqlTypes: Record<string, string> = {
  text: "text",
  enum: "text",
  integer: "int4",
  decimal: "numeric",
  boolean: "bool",
  date: "date",
  datetime: "timestamptz",
  timeOfDay: "time",
  duration: "interval",
  guid: "uuid",
  reference: "uuid",
};

const id = (name: string) => sql.identifier(name);

/**
 * The persisted columns of `def` for a SELECT list, each under its own name, of the rows of
 * `alias`: durations in their wire form, so a record read back holds what was written.
 */
export function recordSelectList(def: AnyEntity, alias: string): SQL {
  return sql.join(
    persistedColumns(def).map((c) => {
      const column = sql`${id(alias)}.${id(c.column)}`;
      return c.field.kind === "duration" ? sql`${durationText(column)} AS ${id(c.column)}` : column;
    }),
    sql`, `,
  );
}

/** the persisted columns of records read from `from` (a table or a workflow's overlay) */
export async function selectRecords(
  session: Session,
  def: AnyEntity,
  from: SQL,
  where: SQL,
  suffix: SQL = sql``,
): Promise<Record<string, unknown>[]> {
  const rows = await session.query(sql`SELECT ${recordSelectList(def, "r")} FROM ${from} AS r WHERE ${where}${suffix}`);
  return rows.map((row) => rowToRecord(def, row));
}

const byGuids = (tenantId: string, guids: readonly string[]) =>
  sql`${id(TENANT_COLUMN)} = ${tenantId} AND guid = ANY(${sql.param([...guids])}::uuid[])`;

const byColumn = (tenantId: string, column: string, values: readonly string[]) =>
  sql`${id(TENANT_COLUMN)} = ${tenantId} AND ${id(column)} = ANY(${sql.param([...values])}::uuid[])`;

/** reading records from `view` (undefined: the base tables), shared by both stores */
export const recordReads = (view: StagedView | undefined): Pick<RecordStore, "load" | "loadWhere"> => ({
  load: async (session, def, tenantId, guids, options = {}) =>
    guids.length === 0
      ? []
      : selectRecords(
          session,
          def,
          relation(def, view),
          byGuids(tenantId, guids),
          // a workflow's overlay cannot be locked row by row; its requests are serialized on the workflow row
          options.forUpdate && view === undefined ? sql` FOR UPDATE` : sql``,
        ),
  loadWhere: async (session, def, tenantId, column, values) =>
    values.length === 0
      ? []
      : selectRecords(session, def, relation(def, view), byColumn(tenantId, column, values), sql` ORDER BY guid`),
});

/** Loads records by Guid from the session's store (missing ones are simply absent from the result). */
export const loadRecords = (
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guids: readonly string[],
  options?: { forUpdate?: boolean },
): Promise<Record<string, unknown>[]> => session.store.load(session, def, tenantId, guids, options);

/**
 * The version of a record as the session's store sees it (what its ETag says, staged-view.ts),
 * or undefined when there is no such record; `forUpdate` locks a base row, so that nothing
 * changes it between a precondition checked on its version and the write that follows.
 */
export async function recordVersion(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guid: string,
  options: { forUpdate?: boolean } = {},
): Promise<string | undefined> {
  const view = session.store.view;
  const lock = options.forUpdate && view === undefined && def.storage === undefined;
  const [row] = await session.query<{ version: string }>(
    sql`SELECT ${versionText("r")} AS version FROM ${relation(def, view)} AS r WHERE r.${id(TENANT_COLUMN)} = ${tenantId} AND r.guid = ${guid}::uuid${lock ? sql` FOR UPDATE` : sql``}`,
  );
  return row?.version;
}

/** many records as one array of values per persisted column (in `persistedColumns` order) */
function columnArrays(def: AnyEntity, records: readonly Record<string, unknown>[]): unknown[][] {
  const columns = persistedColumns(def);
  const arrays: unknown[][] = columns.map(() => []);
  // a changeset's or an import's every record passes here: its values go straight into the arrays
  for (const record of records)
    for (let i = 0; i < columns.length; i++) arrays[i]!.push(columnValue(record, columns[i]!) ?? null);
  return arrays;
}

/**
 * Many records as `unnest(…)` arguments, one typed array per persisted column (in
 * `persistedColumns` order): what staging selects from in one statement.
 */
export function unnestRecords(def: AnyEntity, records: readonly Record<string, unknown>[]): SQL {
  const arrays = columnArrays(def, records);
  return sql.join(
    persistedColumns(def).map((c, i) => sql`${sql.param(arrays[i])}::${sql.raw(sqlTypes[c.field.kind]!)}[]`),
    sql`, `,
  );
}

/** an entity's insert statements, rendered once: one row from values, many rows from `unnest` arrays */
const insertTextsOf = perEntity((def): { readonly one: string; readonly many: string } => {
  const columns = persistedColumns(def);
  const head = `INSERT INTO ${quoteIdentifier(tableName(def))} (${[TENANT_COLUMN, ...columns.map((c) => c.column)].map(quoteIdentifier).join(", ")})`;
  const casts = columns.map((c, i) => `$${i + 2}::${sqlTypes[c.field.kind]}`);
  return {
    one: `${head} VALUES ($1, ${casts.join(", ")})`,
    many: `${head} SELECT $1, * FROM unnest(${casts.map((cast) => `${cast}[]`).join(", ")})`,
  };
});

/**
 * Inserts records in one statement (one row of values, or `unnest` of one array per column for
 * many), which is what makes seeding fast; every record must carry its Guid. The statement's text
 * is made once per entity: inserts are the write path's most frequent statement.
 */
export async function insertRecords(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  records: readonly Record<string, unknown>[],
): Promise<void> {
  if (records.length === 0) return;
  await session.query(insertStatement(def, tenantId, records));
}

/** the statement insertRecords sends for one or more records */
export function insertStatement(
  def: AnyEntity,
  tenantId: string,
  records: readonly Record<string, unknown>[],
): SqlQuery {
  return insertWith(insertTextsOf(def), def, tenantId, records, []);
}

/** the insert of `texts` for the records: the tenant, their columns' values, then `more` parameters */
function insertWith(
  texts: { readonly one: string; readonly many: string },
  def: AnyEntity,
  tenantId: string,
  records: readonly Record<string, unknown>[],
  more: readonly unknown[],
): SqlQuery {
  if (records.length === 1) {
    const values = recordColumns(def, records[0]!);
    return {
      sql: texts.one,
      params: [tenantId, ...persistedColumns(def).map((c) => values.get(c) ?? null), ...more],
    };
  }
  return { sql: texts.many, params: [tenantId, ...columnArrays(def, records), ...more] };
}

/** an entity's inserts with their change log rows (logged-writes.ts), per column its records keep their owner in */
const loggedInsertTextsOf = perEntity(() => new Map<string, { readonly one: string; readonly many: string }>());

function loggedInsertTexts(def: AnyEntity, owner: string | undefined) {
  const texts = loggedInsertTextsOf(def);
  let logged = texts.get(owner ?? "");
  if (logged === undefined) {
    const plain = insertTextsOf(def);
    // the tenant, a parameter per column, then the author's two
    const tail = logInsertedText(def, owner, persistedColumns(def).length + 2);
    logged = {
      one: `WITH r AS (${plain.one} RETURNING *) ${tail}`,
      many: `WITH r AS (${plain.many} RETURNING *) ${tail}`,
    };
    texts.set(owner ?? "", logged);
  }
  return logged;
}

/** the insert of records with a change log row each, by the author of `session` */
export function loggedInsertStatement(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  records: readonly Record<string, unknown>[],
): SqlQuery {
  const source = session.changes;
  const texts = loggedInsertTexts(def, ownerColumn(source, def));
  return insertWith(texts, def, tenantId, records, [source?.actor ?? null, source?.requestId ?? null]);
}

/**
 * Updates the given properties of one record, with a change log row when `logged`; false when
 * there is no such record.
 */
export async function updateRecordRow(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guid: string,
  changes: Record<string, unknown>,
  logged = true,
): Promise<boolean> {
  const values = recordColumns(def, changes);
  values.forEach((_, c) => {
    if (c.column === "guid") values.delete(c);
  });
  const assignments: SQL[] = [...values].map(
    ([c, v]) => sql`${id(c.column)} = ${v}::${sql.raw(sqlTypes[c.field.kind]!)}`,
  );
  assignments.push(sql`${id(VERSION_COLUMN)} = ${id(VERSION_COLUMN)} + 1`);
  const set = sql.join(assignments, sql`, `);
  const update = sql`UPDATE ${id(tableName(def))} SET ${set} WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND guid = ${guid}::uuid`;
  if (!logged) return (await session.query(sql`${update} RETURNING guid`)).length > 0;
  const properties = Object.keys(changes).filter((name) => name !== "Guid");
  const log = logWritten(
    tenantId,
    [
      {
        from: "r",
        def,
        kind: "update",
        owner: ownerColumn(session.changes, def),
        properties: sql`${sql.param(properties)}::text[]`,
        data: def.changeLog === "values" ? valuesJson(def, "r", properties) : undefined,
      },
    ],
    session.changes,
  );
  return (await session.query(sql`WITH r AS (${update} RETURNING *) ${log} RETURNING key`)).length > 0;
}

/**
 * Deletes records by Guid (owned collection items go with them, their foreign keys cascade),
 * logging each and each item when `logged`; returns the Guids deleted.
 */
export async function deleteRecords(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guids: readonly string[],
  logged = true,
): Promise<string[]> {
  // a virtual entity has no table: none of its records is kept outside a workflow
  if (guids.length === 0 || def.storage !== undefined) return [];
  const remove = sql`DELETE FROM ${id(tableName(def))} WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND guid = ANY(${sql.param([...guids])}::uuid[])`;
  if (!logged) return (await session.query<{ guid: string }>(sql`${remove} RETURNING guid`)).map((r) => r.guid);
  const items = cascadedItems(def, "d", tenantId);
  const deleted = { from: "d", def, kind: "delete", owner: ownerColumn(session.changes, def) } as const;
  const log = logWritten(tenantId, [deleted, ...items.rows], session.changes);
  const ctes = [sql`d AS (${remove} RETURNING *)`, ...items.ctes, sql`l AS (${log})`];
  const rows = await session.query<{ guid: string }>(sql`WITH ${sql.join(ctes, sql`, `)} SELECT guid FROM d`);
  return rows.map((r) => r.guid);
}

/**
 * The base tables as a store: inserts in bulk, updates of the changed columns, deletes that take
 * owned collection items with them (their foreign keys cascade); with `changeLog`, every write
 * appends its change log rows in its own statement (logged-writes.ts).
 */
export function tableStore(changeLog: boolean): RecordStore {
  const statement: Required<RecordStore>["insertStatement"] = changeLog
    ? loggedInsertStatement
    : (_session, def, tenantId, records) => insertStatement(def, tenantId, records);
  return {
    view: undefined,
    defersSave: false,
    changeLog,
    ...recordReads(undefined),
    insert: async (session, def, tenantId, records) => {
      if (records.length > 0) await session.query(statement(session, def, tenantId, records));
    },
    insertStatement: statement,
    update: async (session, def, tenantId, record, changes) => {
      await updateRecordRow(session, def, tenantId, record.Guid as string, changes, changeLog);
    },
    rebase: async () => {},
    remove: (session, def, tenantId, guids) => deleteRecords(session, def, tenantId, guids, changeLog),
  };
}

/** the base tables, every write logged (what the drivers serve unless the log is switched off) */
export const baseStore: RecordStore = tableStore(true);
