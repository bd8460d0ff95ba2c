/**
 * The production driver: PostgreSQL through postgres.js, with prepared statements on (the
 * architecture's first performance lesson). Result types are read as text where JavaScript would
 * lose information (numeric, int8) or change the form (dates), the same as the PGlite driver.
 *
 * Every wait is bounded (architecture: Faults): connecting, waiting for a free connection
 * (pool-gate.ts), a statement, a lock, and a transaction left idle; a connection lost with the
 * server is retried after at most half a second, so the pool serves again soon after the server
 * is back. postgres.js itself is patched (patches/postgres@3.4.9.patch) so that a connection
 * closing under a transaction fails its queries instead of the process.
 */
import postgres from "postgres";
import { type Database, type Row, type Session, type Statement, toQuery } from "./database.js";
import { PoolGate } from "./pool-gate.js";
import { poolUsage } from "./pool-usage.js";
import { defaultPostgresOptions, type PostgresOptions } from "./postgres-options.js";
import { baseStore } from "./record-store.js";

export type { PostgresOptions };

/**
 * Seconds before reconnecting after a lost connection. postgres.js's default grows with the
 * failures of all its connections together up to 20 s, so a pool of ten that lost the server for
 * three seconds waited far longer than that for it; here the delay doubles from 50 ms to at most
 * half a second, with jitter so that several hosts do not reconnect in step.
 */
const reconnectDelay = (failures: number): number => Math.min(0.05 * 2 ** failures, 0.5) * (0.5 + Math.random() / 2);

const asText = { to: 25, from: [1700, 1082, 1184, 1114, 20], serialize: String, parse: (v: string) => v };

const session = (sql: postgres.Sql<any> | postgres.TransactionSql<any>): Session => ({
  async query<R = Row>(statement: Statement) {
    const q = toQuery(statement);
    return (await sql.unsafe(q.sql, q.params as postgres.ParameterOrJSON<never>[], {
      prepare: true,
    })) as unknown as R[];
  },
  store: baseStore,
});

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const o = { ...defaultPostgresOptions, ...options };
  const sql = postgres(url, {
    max: o.max,
    prepare: true,
    onnotice: () => {},
    types: { asText } as any,
    connect_timeout: o.connectTimeout / 1000,
    backoff: reconnectDelay,
    // sent with the startup message, so they hold from a connection's first statement on
    connection: {
      statement_timeout: o.statementTimeout,
      lock_timeout: o.lockTimeout,
      idle_in_transaction_session_timeout: o.idleInTransactionTimeout,
    },
  });
  const gate = new PoolGate(o.max, o.poolTimeout);
  const root = session(sql);
  const usage = poolUsage(o.max);
  return {
    driver: "postgres",
    store: baseStore,
    query: (statement) => usage.track(gate.run(() => root.query(statement))),
    transaction: (fn, options) =>
      usage.track(
        gate.run(
          async () => (await sql.begin(options?.readOnly ? "read only" : "read write", (tx) => fn(session(tx)))) as any,
        ),
      ),
    close: () => sql.end({ timeout: 5 }),
    stats: usage.stats,
  };
}
