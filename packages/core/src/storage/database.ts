/**
 * One small interface over both drivers, so every stage above storage runs unchanged on the
 * embedded PGlite and on PostgreSQL. Statements are plain `{ sql, params }` (or drizzle `SQL`
 * values, rendered here): values only ever travel as bound parameters.
 */
import { is, SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { ChangeSource } from "../changes/change-source.js";
import type { PoolStats } from "./pool-usage.js";
import type { ReadRouting } from "./read-replicas.js";
import type { RecordStore } from "./record-port.js";

export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
  /**
   * The statement's best plan depends on its values (a filter's selectivity, the tenant's share of
   * a table: a generic plan ran a path filter 8x slower), so it is planned for the values of each
   * run, wherever it runs. Left out, PostgreSQL may run a prepared statement on a generic plan it
   * caches after five runs, made without the values: for a lookup by key with the tenant (a record
   * by Guid, records by a list of Guids, natural keys), an insert or an update by key, that is the
   * plan any values get, and it saves the planning, most of a point read's time in PostgreSQL
   * (postgres-database.ts). A compiled OData read says which it is (odata's plan-for-values.ts).
   */
  readonly planForValues?: boolean;
}

export type Statement = SqlQuery | SQL;
export type Row = Record<string, unknown>;

export interface Session {
  query<R = Row>(statement: Statement): Promise<R[]>;
  /** where records are loaded from and written to: the base tables, or a workflow's staged state */
  readonly store: RecordStore;
  /**
   * A transaction's last statements, sent with its COMMIT right behind them without waiting in
   * between (one round trip for a write's final inserts): the first failure is thrown, and then
   * nothing was committed (PostgreSQL turns the COMMIT of a failed transaction into a rollback).
   * It must be the work's last act; a statement after it is refused. Absent where there is no
   * round trip to save (PGlite, or outside a transaction): the caller then sends the statements
   * and the transaction commits when the work returns.
   */
  readonly commitWith?: ((statements: readonly Statement[]) => Promise<void>) | undefined;
  /**
   * Who makes the changes written through this session, and the model of what they write: what
   * their change log rows record (change-source.ts). Given to the tenant transaction of a
   * request (`inTenant`), and kept by every session made from this one.
   */
  readonly changes?: ChangeSource | undefined;
}

export interface TransactionOptions {
  /** enforce read-only (read methods, GET requests) */
  readonly readOnly?: boolean;
  /**
   * The tenant the work runs for. With `setup` (tenant-scope.ts) it lets a driver serve the work
   * on a session already in the application role and set for that tenant (postgres-database.ts:
   * a one-statement read, or a write's one statement, without a transaction); a driver that
   * cannot simply runs the set-up.
   */
  readonly tenant?: string;
  /**
   * The statement that opens the transaction (a tenant's role and settings). The PostgreSQL
   * driver sends it right behind BEGIN and ahead of the first statement without waiting for
   * either: one round trip where there were three. Its failure fails the transaction.
   */
  readonly setup?: Statement;
  /**
   * The work is one statement (a read): COMMIT goes out right behind it, so BEGIN, the set-up,
   * the statement and COMMIT cost one round trip. A second statement is refused, for it could no
   * longer run in the transaction.
   */
  readonly oneStatement?: boolean;
}

export interface Database extends Session {
  readonly driver: "pglite" | "postgres";
  transaction<T>(fn: (tx: Session) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
  /** how busy the connections are now (the host's pool metrics); with read replicas, the primary's */
  stats(): PoolStats;
  /** present when one-statement reads go to read replicas (read-replicas.ts): per-client views, each pool's report */
  readonly routing?: ReadRouting;
}

const dialect = new PgDialect();

/**
 * `session` limited to one statement (`TransactionOptions.oneStatement`), with `run` doing the
 * work of that statement; a second one fails naming the limit instead of running outside the
 * transaction.
 */
export function oneStatementSession(store: Session["store"], run: <R>(statement: Statement) => Promise<R[]>): Session {
  let used = false;
  return {
    query<R = Row>(statement: Statement) {
      if (used)
        return Promise.reject(
          new Error(
            `A one-statement transaction was asked for a second statement: ${toQuery(statement).sql.slice(0, 80)}`,
          ),
        );
      used = true;
      return run<R>(statement);
    },
    store,
  };
}

/**
 * `db` with `seen` told of every statement its work runs, inside a transaction or not, as it
 * goes out (a transaction's last statements together): what counts statements per request, or
 * records them in a test. A transaction's set-up belongs to the transaction, not to the work, and
 * is not seen.
 */
export function watchStatements(db: Database, seen: (statements: readonly Statement[]) => void): Database {
  const watched = (session: Session): Session => {
    const commitWith = session.commitWith;
    return {
      query: <R>(statement: Statement) => {
        seen([statement]);
        return session.query<R>(statement);
      },
      store: session.store,
      commitWith:
        commitWith &&
        ((statements) => {
          seen(statements);
          return commitWith(statements);
        }),
    };
  };
  return {
    driver: db.driver,
    query: watched(db).query,
    store: db.store,
    transaction: (fn, options) => db.transaction((tx) => fn(watched(tx)), options),
    close: () => db.close(),
    stats: () => db.stats(),
  };
}

/** what an element of an array literal escapes with a backslash */
const ESCAPED = /[\\"]/;
const ESCAPED_ALL = /[\\"]/g;

/**
 * A one-dimensional array as a PostgreSQL array literal. Both drivers then send it as text and
 * the statement's cast (`$1::uuid[]`) types it, which is the one array form PGlite and
 * postgres.js agree on.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  // a changeset's inserts pass every value of every column here: only a value with a quote or a
  // backslash makes a new string to escape them
  let literal = "{";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) literal += ",";
    if (v === null || v === undefined) literal += "NULL";
    else {
      const text = String(v);
      literal += `"${ESCAPED.test(text) ? text.replace(ESCAPED_ALL, "\\$&") : text}"`;
    }
  }
  return `${literal}}`;
}

/** whether `statement` asks to be planned for its values (`SqlQuery.planForValues`) */
export const plannedForValues = (statement: Statement): boolean =>
  !is(statement, SQL) && statement.planForValues === true;

export const toQuery = (statement: Statement): SqlQuery => {
  const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : statement;
  return query.params.some(Array.isArray)
    ? { sql: query.sql, params: query.params.map((p) => (Array.isArray(p) ? arrayLiteral(p) : p)) }
    : query;
};
