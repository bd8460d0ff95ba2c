/**
 * Reading the change log (change-table.ts) in the order that is safe across concurrent writers:
 * a range of transactions `[from, to)` where `to` is at most the oldest transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`, the watermark). Every transaction below the
 * watermark has committed or rolled back, so the rows of the range are final, and a reader that
 * next reads `[to, …)` misses none: a transaction that was running when the range was read has an
 * id of at least the watermark. A transaction that committed above the watermark is read again in
 * the next range, which is harmless to a reader that applies records' current state.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Session } from "../storage/database.js";
import { CHANGE_TABLE, type ChangeKind } from "./change-table.js";

/** one row of the log as read */
export interface ChangeRow {
  /** the transaction (an `xid8`'s decimal text) */
  readonly xid: string;
  readonly seq: number;
  /** ISO 8601, with the offset */
  readonly at: string;
  readonly entity: string;
  readonly key: string;
  readonly owner: string | null;
  readonly kind: ChangeKind;
  readonly properties: readonly string[] | null;
  readonly data: Record<string, unknown> | null;
  readonly actor: string | null;
  readonly requestId: string | null;
}

/** a place in the log: the rows after it are those of later transactions, or later in this one */
export interface ChangePosition {
  readonly xid: string;
  readonly seq: number;
}

const log = sql.identifier(CHANGE_TABLE);

/** the columns of a ChangeRow, from the log at alias `c` */
const rowColumns = sql`c.xid::text AS xid, c.seq, to_json(c.at) #>> '{}' AS at, c.entity, c.key::text AS key, c.owner::text AS owner, c.kind, c.properties, c.data, c.actor, c.request_id AS "requestId"`;

const asRow = (row: Record<string, unknown>): ChangeRow => ({
  ...(row as unknown as ChangeRow),
  seq: Number(row.seq),
  data: (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as ChangeRow["data"],
});

/** the watermark now: every transaction below it has ended (the start of what a new reader reads next) */
export async function changeWatermark(session: Session): Promise<string> {
  const [row] = await session.query<{ x: string }>(sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x`);
  return row!.x;
}

/**
 * The watermark now, and whether the tenant's log has rows of transactions in `[since, watermark)`:
 * those that became final since a reader last read the watermark `since`. What a follower of the
 * log asks every few moments to learn whether to read (one index probe, whatever the range's size).
 */
export async function changedSince(
  session: Session,
  tenantId: string,
  since: string,
): Promise<{ readonly to: string; readonly changed: boolean }> {
  const [row] = await session.query<{ to: string; changed: boolean }>(
    sql`SELECT w.x::text AS "to", EXISTS (SELECT 1 FROM ${log} AS c WHERE c.tenant_id = ${tenantId} AND c.xid >= ${since}::xid8 AND c.xid < w.x) AS changed
        FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x) AS w`,
  );
  return { to: row!.to, changed: row!.changed };
}

/** a transaction id as a delta token carries it: the decimal text of an `xid8` */
export const isTransactionId = (text: string): boolean => /^\d{1,20}$/.test(text) && BigInt(text) < 2n ** 64n;

export interface ChangeRange {
  /** the entities whose rows are read */
  readonly entities: readonly string[];
  /** the range's first transaction (a watermark read earlier) */
  readonly from: string;
  /** the range's end, a watermark read earlier; left out, the watermark now */
  readonly to?: string | undefined;
  /** only rows after this place (where the page before ended) */
  readonly after?: ChangePosition | undefined;
  /** the most rows read */
  readonly limit: number;
}

/**
 * A page of the rows of `range`, in log order, and the end of the range (its `to`, or the
 * watermark of this read). One statement: each entity's rows come in index order (tenant,
 * entity, transaction, sequence) and are merged, so a page costs its rows, not the range's.
 */
export async function readChanges(
  session: Session,
  tenantId: string,
  range: ChangeRange,
): Promise<{ readonly to: string; readonly rows: ChangeRow[] }> {
  const after =
    range.after === undefined ? sql`` : sql` AND (c.xid, c.seq) > (${range.after.xid}::xid8, ${range.after.seq}::int8)`;
  const perEntity = range.entities.map(
    (entity) =>
      sql`(SELECT ${rowColumns}, c.xid AS o1, c.seq AS o2 FROM ${log} AS c WHERE c.tenant_id = ${tenantId} AND c.entity = ${entity} AND c.xid >= ${range.from}::xid8 AND c.xid < w.x${after} ORDER BY c.xid, c.seq LIMIT ${range.limit})`,
  );
  const end: SQL = range.to === undefined ? sql`pg_snapshot_xmin(pg_current_snapshot())` : sql`${range.to}::xid8`;
  const rows = await session.query(
    sql`SELECT w.x::text AS "$to", c.* FROM (SELECT ${end} AS x) AS w
        LEFT JOIN LATERAL (SELECT * FROM (${sql.join(perEntity, sql` UNION ALL `)}) AS u ORDER BY u.o1, u.o2 LIMIT ${range.limit}) AS c ON true`,
  );
  return {
    to: String(rows[0]!.$to),
    rows: rows.filter((row) => row.xid !== null).map(asRow),
  };
}

export interface HistoryQuery {
  readonly entity: string;
  readonly key: string;
  /** the owned collections' item entities, whose rows with this record as owner belong to its history */
  readonly items: readonly string[];
  /** only transactions before this one (where the page before ended) */
  readonly before?: string | undefined;
  /** the most transactions read */
  readonly limit: number;
}

/**
 * A record's changes and its owned items', newest transaction first, the rows of each
 * transaction in their order: at most `limit` transactions, and whether there are more.
 */
export async function readHistory(
  session: Session,
  tenantId: string,
  query: HistoryQuery,
): Promise<{ readonly transactions: ChangeRow[][]; readonly more: boolean }> {
  const before = query.before === undefined ? sql`` : sql` AND c.xid < ${query.before}::xid8`;
  const mine = sql`c.tenant_id = ${tenantId} AND c.key = ${query.key}::uuid AND c.entity = ${query.entity}`;
  const items =
    query.items.length === 0
      ? sql``
      : sql` OR (c.tenant_id = ${tenantId} AND c.owner = ${query.key}::uuid AND c.entity = ANY(${sql.param([...query.items])}::text[]))`;
  const rows = (
    await session.query(
      sql`SELECT ${rowColumns} FROM ${log} AS c
          WHERE c.xid IN (SELECT DISTINCT c.xid FROM ${log} AS c WHERE ((${mine})${items})${before} ORDER BY c.xid DESC LIMIT ${query.limit + 1})
            AND ((${mine})${items})
          ORDER BY c.xid DESC, c.seq`,
    )
  ).map(asRow);
  const transactions: ChangeRow[][] = [];
  for (const row of rows) {
    const last = transactions.at(-1);
    if (last !== undefined && last[0]!.xid === row.xid) last.push(row);
    else transactions.push([row]);
  }
  const more = transactions.length > query.limit;
  return { transactions: more ? transactions.slice(0, query.limit) : transactions, more };
}
