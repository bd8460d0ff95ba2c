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
import {
  type Database,
  oneStatementSession,
  type Row,
  type Session,
  type Statement,
  type TransactionOptions,
  toQuery,
} from "./database.js";
import { PoolGate } from "./pool-gate.js";
import { defaultPostgresOptions, type PostgresOptions } from "./postgres-options.js";
import type { RecordStore } from "./record-port.js";
import { baseStore } from "./record-store.js";
import { analyzingGrowth } from "./table-growth.js";
import { APP_ROLE, TENANT_SETTING } from "./tenant-policy.js";

export type { PostgresOptions };

/**
 * Seconds before reconnecting after a lost connection. postgres.js's default grows with the
 * failures of all its connections together up to 20 s, so a pool of ten that lost the server for
 * three seconds waited far longer than that for it; here the delay doubles from 50 ms to at most
 * half a second, with jitter so that several hosts do not reconnect in step.
 */
const reconnectDelay = (failures: number): number => Math.min(0.05 * 2 ** failures, 0.5) * (0.5 + Math.random() / 2);

const asText = { to: 25, from: [1700, 1082, 1184, 1114, 20], serialize: String, parse: (v: string) => v };

type Connection = postgres.Sql<any> | postgres.TransactionSql<any> | postgres.ReservedSql<any>;

/** a statement sent at once (postgres.js sends a query only once it is awaited or executed) */
const send = <R>(sql: Connection, statement: Statement): Promise<R[]> => {
  const q = toQuery(statement);
  return sql
    .unsafe(q.sql, q.params as postgres.ParameterOrJSON<never>[], { prepare: true })
    .execute() as unknown as Promise<R[]>;
};

const session = (sql: Connection, store: RecordStore): Session => ({
  query: <R = Row>(statement: Statement) => send<R>(sql, statement),
  store,
});

const COMMIT = { sql: "COMMIT", params: [] };
const ROLLBACK = { sql: "ROLLBACK", params: [] };

/**
 * The results of statements sent together, in the order sent; the first failure is thrown (a
 * failed set-up, then, rather than the error of the statement it aborted). Every one is awaited,
 * so none fails unhandled.
 */
async function settled(sent: readonly Promise<unknown>[]): Promise<unknown[]> {
  const outcomes = await Promise.allSettled(sent);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value);
}

/**
 * A transaction opened by `options.setup` with nothing awaited in between (architecture: one
 * round trip per read). postgres.js writes the queries handed to one connection in the same tick
 * as one packet, each with its own Sync, and PostgreSQL answers them in order; so BEGIN, the
 * set-up and the first statement travel together, for one statement COMMIT too, and a write's
 * last statements go with its COMMIT (`commitWith`). A tenant's one-statement read needs no
 * transaction at all (`tenantReads`).
 *
 * As safe as waiting for each: the connection is reserved, so only this transaction's statements
 * reach it, in the order they were sent. A statement runs after BEGIN and the set-up in the same
 * transaction; when either failed, the transaction is aborted and the statement fails with it
 * ("current transaction is aborted"), and the set-up's error is the one thrown. COMMIT of an
 * aborted transaction rolls it back. Nothing a statement returned is handed out unless BEGIN and
 * the set-up succeeded.
 */
async function pipelined<T>(
  sql: postgres.Sql<any>,
  store: RecordStore,
  fn: (tx: Session) => Promise<T>,
  options: TransactionOptions & { readonly setup: Statement },
): Promise<T> {
  const reserved = await sql.reserve();
  try {
    const opening = [
      send(reserved, { sql: options.readOnly ? "BEGIN READ ONLY" : "BEGIN", params: [] }),
      send(reserved, options.setup),
    ];
    // each is awaited below; until then a failure must not count as unhandled
    for (const p of opening) p.catch(() => {});
    const opened = () => settled(opening);
    if (options.oneStatement) {
      let closed = false;
      const tx = oneStatementSession(store, async <R>(statement: Statement) => {
        closed = true;
        const results = await settled([...opening, send<R>(reserved, statement), send(reserved, COMMIT)]);
        return results[2] as R[];
      });
      try {
        return await fn(tx);
      } finally {
        // work that sent no statement still ends the transaction it opened
        if (!closed) await send(reserved, ROLLBACK).catch(() => {});
      }
    }
    let ended = false;
    try {
      const result = await fn({
        query: async <R = Row>(statement: Statement) => {
          if (ended)
            throw new Error(`A statement after the transaction's last ones: ${toQuery(statement).sql.slice(0, 80)}`);
          try {
            return await send<R>(reserved, statement);
          } catch (error) {
            // a failed set-up aborts the transaction: its error says why, the statement's does not
            await opened();
            throw error;
          }
        },
        store,
        commitWith: async (statements) => {
          if (ended) throw new Error("The transaction's last statements were sent already.");
          ended = true;
          const sent = [...statements.map((statement) => send(reserved, statement)), send(reserved, COMMIT)];
          await settled([...opening, ...sent]);
        },
      });
      if (!ended) {
        await opened();
        await send(reserved, COMMIT);
      }
      return result;
    } catch (error) {
      // after commitWith the transaction is over: committed, or rolled back by its COMMIT
      if (!ended) await send(reserved, ROLLBACK).catch(() => {});
      throw error;
    }
  } finally {
    reserved.release();
  }
}

/** sets the tenant of a tenant-read session, for the session (its reads run without a transaction) */
const SESSION_TENANT = `SELECT set_config('${TENANT_SETTING}', $1, false)`;

/** a connection's backend session, which the patched postgres.js updates in place when the connection reconnects */
interface Backend {
  readonly pid: number | null;
  readonly secret: number | null;
}

/**
 * One-statement tenant reads without a transaction: the statement alone, the way a hand-written
 * server would send it, as safe as a tenant transaction. They run on a pool of their own whose
 * connections are opened in the application role and read-only (startup parameters, so no
 * statement on this pool runs as the owner or writes), and whose sessions keep the tenant they
 * were last set to, at session level. A read meets a session known to hold its tenant and goes
 * alone, or goes right behind the statement that sets it, in the same packet; its rows are handed
 * out only when that set-up succeeded (it ran first, on the same session). Which tenant a session
 * holds is kept per backend, by process id and cancel key, which a reconnect replaces: a
 * connection that reconnected is set again before its first read. Row-level security applies as
 * in a tenant transaction (the compiled statement carries its own tenant predicate besides). A
 * postgres.js without the patch that tells the backend (patches/postgres@3.4.9.patch) still
 * reads correctly, sending the set-up with every read.
 */
function tenantReads(url: string, settings: postgres.Options<{}>, store: RecordStore) {
  const sql = postgres(url, {
    ...settings,
    connection: { ...settings.connection, role: APP_ROLE, default_transaction_read_only: true },
  });
  const held = new WeakMap<Backend, { pid: number | null; secret: number | null; tenant: string }>();
  const holds = (backend: Backend | undefined, tenant: string): boolean => {
    const session = backend && held.get(backend);
    return session?.tenant === tenant && session.pid === backend!.pid && session.secret === backend!.secret;
  };
  const read = async <T>(tenant: string, fn: (tx: Session) => Promise<T>): Promise<T> => {
    const reserved = await sql.reserve();
    try {
      return await fn(
        oneStatementSession(store, async <R>(statement: Statement) => {
          const backend = (reserved as { backend?: Backend }).backend;
          if (holds(backend, tenant)) return send<R>(reserved, statement);
          // the session this set-up reaches: if the connection reconnects meanwhile, it is another one
          const session = backend && backend.pid !== null ? { pid: backend.pid, secret: backend.secret, tenant } : null;
          if (backend) held.delete(backend);
          const [, rows] = await settled([
            send(reserved, { sql: SESSION_TENANT, params: [tenant] }),
            send<R>(reserved, statement),
          ]);
          if (backend && session) held.set(backend, session);
          return rows as R[];
        }),
      );
    } finally {
      reserved.release();
    }
  };
  return { sql, read };
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const o = { ...defaultPostgresOptions, ...options };
  const settings: postgres.Options<{}> = {
    max: o.max,
    prepare: true,
    onnotice: () => {},
    types: { asText } as any,
    connect_timeout: o.connectTimeout / 1000,
    backoff: reconnectDelay,
    // sent with the startup message, so they hold from a connection's first statement on
    connection: {
      // a prepared statement's generic plan can be far worse than one made for the actual values
      // (a path filter ran 8x slower in pnpm bench): planning each run is cheaper. Set once per
      // connection, not in every transaction's set-up, where it cost each read a few percent
      plan_cache_mode: "force_custom_plan",
      statement_timeout: o.statementTimeout,
      lock_timeout: o.lockTimeout,
      idle_in_transaction_session_timeout: o.idleInTransactionTimeout,
    },
  };
  const sql = postgres(url, settings);
  const store = analyzingGrowth(baseStore, (statement) => sql.unsafe(statement).execute());
  const reads = tenantReads(url, settings, store);
  const gate = new PoolGate(o.max, o.poolTimeout);
  const root = session(sql, store);
  return {
    driver: "postgres",
    store,
    query: (statement) => gate.run(() => root.query(statement)),
    transaction: (fn, options) =>
      gate.run(async () =>
        options?.tenant !== undefined && options.readOnly && options.oneStatement
          ? reads.read(options.tenant, fn)
          : options?.setup !== undefined
            ? pipelined(sql, store, fn, { ...options, setup: options.setup })
            : ((await sql.begin(options?.readOnly ? "read only" : "read write", (tx) =>
                fn(session(tx, store)),
              )) as any),
      ),
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), reads.sql.end({ timeout: 5 })]);
    },
    stats: () => gate.stats(),
  };
}
