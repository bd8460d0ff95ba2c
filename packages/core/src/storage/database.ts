/**
 * One small interface over both drivers, so every stage above storage runs unchanged on the
 * embedded PGlite and on PostgreSQL. Statements are plain `{ sql, params }` (or drizzle `SQL`
 * values, rendered here): values only ever travel as bound parameters.
 */
import { is, SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { PoolStats } from "./pool-usage.js";
import type { RecordStore } from "./record-port.js";

export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export type Statement = SqlQuery | SQL;
export type Row = Record<string, unknown>;

export interface Session {
  query<R = Row>(statement: Statement): Promise<R[]>;
  /** where records are loaded from and written to: the base tables, or a workflow's staged state */
  readonly store: RecordStore;
}

export interface TransactionOptions {
  /** enforce read-only (read methods, GET requests) */
  readonly readOnly?: boolean;
}

export interface Database extends Session {
  readonly driver: "pglite" | "postgres";
  transaction<T>(fn: (tx: Session) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
  /** how busy the connections are now (the host's pool metrics) */
  stats(): PoolStats;
}

const dialect = new PgDialect();

/**
 * A one-dimensional array as a PostgreSQL array literal. Both drivers then send it as text and
 * the statement's cast (`$1::uuid[]`) types it, which is the one array form PGlite and
 * postgres.js agree on.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((v) =>
    v === null || v === undefined ? "NULL" : `"${String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`,
  );
  return `{${items.join(",")}}`;
}

export const toQuery = (statement: Statement): SqlQuery => {
  const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : statement;
  return query.params.some(Array.isArray)
    ? { sql: query.sql, params: query.params.map((p) => (Array.isArray(p) ? arrayLiteral(p) : p)) }
    : query;
};
