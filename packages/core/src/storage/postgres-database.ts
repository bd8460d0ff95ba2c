/**
 * The production driver: PostgreSQL through postgres.js, with prepared statements on (the
 * architecture's first performance lesson). Result types are read as text where JavaScript would
 * lose information (numeric, int8) or change the form (dates), the same as the PGlite driver.
 *
 * Every wait is bounded (architecture: Faults): connecting, waiting for a free connection
 * (pool-gate.ts), a statement, a lock, and a transaction left idle; a connection lost with the
 * server is retried after at most half a second, so the pool serves again soon after the server
 * is back. The driver is @bizdata/postgres, the project's fork of postgres.js 3.4.9, in which a
 * connection closing under a transaction fails its queries instead of the process.
 *
 * Failover (docs/guide/topologies.md): a multi-host URL's `target_session_attrs` picks the server
 * of each connection as it opens (target-session.ts: `primary` for `read-write`); a connection
 * waits for one at most the connect timeout (bounded-reservation.ts); and a write that finds its
 * server read-only, a primary demoted under open connections, replaces the pools so that their
 * connections pick again (leave-read-only-servers.ts).
 */
import postgres from "@bizdata/postgres";
import { reserveWithin } from "./bounded-reservation.js";
import {
  type Database,
  oneStatementSession,
  plannedForValues,
  type Row,
  type Session,
  type Statement,
  type TransactionOptions,
  toQuery,
} from "./database.js";
import { type Backend, current, heldSessions, OPENING_PLANNING, planningOf } from "./held-sessions.js";
import { leavingReadOnlyServers } from "./leave-read-only-servers.js";
import { hostsFrom } from "./multi-host-url.js";
import type { StoreOptions } from "./open-database.js";
import { PoolGate } from "./pool-gate.js";
import { behindPooler, type PoolerMode, sendUnnamed, transactionSetups } from "./pooler-mode.js";
import { defaultPostgresOptions, type PostgresOptions } from "./postgres-options.js";
import type { RecordStore } from "./record-port.js";
import { tableStore } from "./record-store.js";
import { replaceablePool } from "./replaceable-pool.js";
import { settled } from "./settled.js";
import { analyzingGrowth } from "./table-growth.js";
import { sessionTarget } from "./target-session.js";
import { APP_ROLE } from "./tenant-policy.js";

export type { PostgresOptions };

/**
 * Seconds before reconnecting after a lost connection. postgres.js's default grows with the
 * failures of all its connections together up to 20 s, so a pool of ten that lost the server for
 * three seconds waited far longer than that for it; here the delay doubles from 50 ms to at most
 * half a second, with jitter so that several hosts do not reconnect in step.
 */
const reconnectDelay = (failures: number): number => Math.min(0.05 * 2 ** failures, 0.5) * (0.5 + Math.random() / 2);

/** seconds a pool that is closed or replaced (replaceable-pool.ts) gives its running work before failing it */
const END_TIMEOUT_S = 5;

/** the URL's hosts from the `turn`-th on (multi-host-url.ts), as arrays: postgres.js takes them, its types say one */
const startingAt = (url: string, turn: number) => hostsFrom(url, turn) as unknown as postgres.Options<{}>;

const asText = { to: 25, from: [1700, 1082, 1184, 1114, 20], serialize: String, parse: (v: string) => v };

type Connection = postgres.Sql<any> | postgres.ReservedSql<any>;

/**
 * a statement sent at once (postgres.js sends a query only once it is awaited or executed),
 * prepared by name on the connection's session (session mode)
 */
const send = <R>(sql: Connection, statement: Statement): Promise<R[]> => {
  const q = toQuery(statement);
  return sql
    .unsafe(q.sql, q.params as postgres.ParameterOrJSON<never>[], { prepare: true })
    .execute() as unknown as Promise<R[]>;
};

/**
 * A statement of the owner's work, which has no session state to switch (held-sessions.ts): one
 * planned for its values goes unnamed, planned so at every run whatever the session's mode
 */
const sendAsAsked = <R>(sql: Connection, statement: Statement): Promise<R[]> =>
  plannedForValues(statement) ? sendUnnamed<R>(sql, statement) : send<R>(sql, statement);

const session = (sql: Connection, store: RecordStore): Session => ({
  query: <R = Row>(statement: Statement) => sendAsAsked<R>(sql, statement),
  store,
});

const BEGIN = { sql: "BEGIN", params: [] };
const BEGIN_READ_ONLY = { sql: "BEGIN READ ONLY", params: [] };
const COMMIT = { sql: "COMMIT", params: [] };
const ROLLBACK = { sql: "ROLLBACK", params: [] };
/** around a read planned for its values in a transaction on a session that caches plans (`tenantTransaction`) */
const PLAN_FOR_VALUES = { sql: "SET LOCAL plan_cache_mode = force_custom_plan", params: [] };
const PLAN_AS_SESSION = { sql: "SET LOCAL plan_cache_mode TO DEFAULT", params: [] };

/**
 * A transaction opened by `options.setup` with nothing awaited in between (architecture: one
 * round trip per read). postgres.js writes the queries handed to one connection in the same tick
 * as one packet, each with its own Sync, and PostgreSQL answers them in order; so BEGIN, the
 * set-up and the first statement travel together, for one statement COMMIT too, and a write's
 * last statements go with its COMMIT (`commitWith`). A tenant's work (`options.tenant`) runs on
 * sessions that hold the role and the tenant instead (`tenantRead`, `tenantTransaction`).
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
  options: Omit<TransactionOptions, "setup"> & {
    /** the set-up, or what makes it for the connection the transaction got */
    readonly setup: Statement | undefined | ((reserved: postgres.ReservedSql<any>) => Statement | undefined);
  },
  reserveTimeout: number,
  sendVia: <R>(sql: Connection, statement: Statement) => Promise<R[]> = sendAsAsked,
): Promise<T> {
  const reserved = await reserveWithin(sql, reserveTimeout);
  try {
    const setup = typeof options.setup === "function" ? options.setup(reserved) : options.setup;
    const opening = [
      sendVia(reserved, options.readOnly ? BEGIN_READ_ONLY : BEGIN),
      ...(setup ? [sendVia(reserved, setup)] : []),
    ];
    // each is awaited below; until then a failure must not count as unhandled
    for (const p of opening) p.catch(() => {});
    const opened = () => settled(opening);
    if (options.oneStatement) {
      let closed = false;
      const tx = oneStatementSession(store, async <R>(statement: Statement) => {
        closed = true;
        const results = await settled([...opening, sendVia<R>(reserved, statement), sendVia(reserved, COMMIT)]);
        return results.at(-2) as R[];
      });
      try {
        return await fn(tx);
      } finally {
        // work that sent no statement still ends the transaction it opened
        if (!closed) await sendVia(reserved, ROLLBACK).catch(() => {});
      }
    }
    let ended = false;
    try {
      const result = await fn({
        query: async <R = Row>(statement: Statement) => {
          if (ended)
            throw new Error(`A statement after the transaction's last ones: ${toQuery(statement).sql.slice(0, 80)}`);
          try {
            return await sendVia<R>(reserved, statement);
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
          const sent = [...statements.map((statement) => sendVia(reserved, statement)), sendVia(reserved, COMMIT)];
          await settled([...opening, ...sent]);
        },
      });
      if (!ended) {
        await opened();
        await sendVia(reserved, COMMIT);
      }
      return result;
    } catch (error) {
      // after commitWith the transaction is over: committed, or rolled back by its COMMIT
      if (!ended) await sendVia(reserved, ROLLBACK).catch(() => {});
      throw error;
    }
  } finally {
    reserved.release();
  }
}

/**
 * Work outside a tenant on a reserved connection, each statement awaited: for a multi-host URL
 * without a primary the reservation is what gives up in time (bounded-reservation.ts), where
 * `sql.begin` would wait for as long as postgres.js tries the hosts.
 */
async function awaited<T>(
  sql: postgres.Sql<any>,
  store: RecordStore,
  fn: (tx: Session) => Promise<T>,
  readOnly: boolean,
  reserveTimeout: number,
): Promise<T> {
  const reserved = await reserveWithin(sql, reserveTimeout);
  try {
    await send(reserved, readOnly ? BEGIN_READ_ONLY : BEGIN);
    try {
      const result = await fn(session(reserved, store));
      await send(reserved, COMMIT);
      return result;
    } catch (error) {
      await send(reserved, ROLLBACK).catch(() => {});
      throw error;
    }
  } finally {
    reserved.release();
  }
}

/** one statement outside a tenant and a transaction, on a connection reserved in time (as `awaited`) */
async function alone<R>(
  sql: postgres.Sql<any>,
  statement: Statement,
  reserveTimeout: number,
  sendVia: <T>(sql: Connection, statement: Statement) => Promise<T[]> = sendAsAsked,
): Promise<R[]> {
  const reserved = await reserveWithin(sql, reserveTimeout);
  try {
    return await sendVia<R>(reserved, statement);
  } finally {
    reserved.release();
  }
}

/**
 * A pool whose connections are opened in the application role (a startup parameter, so no
 * statement on it runs as the owner) and whose sessions keep the tenant they were last set to,
 * and how they plan, at session level (held-sessions.ts).
 */
function tenantSessions(url: string, settings: postgres.Options<{}>, readOnly: boolean) {
  const pool = replaceablePool(
    (turn) =>
      postgres(url, {
        ...settings,
        ...startingAt(url, turn),
        connection: {
          ...settings.connection,
          role: APP_ROLE,
          ...(readOnly && { default_transaction_read_only: true }),
        },
      }),
    END_TIMEOUT_S,
  );
  return {
    pool,
    get sql() {
      return pool.sql;
    },
    /** how long a reservation waits for its connection to open (bounded-reservation.ts) */
    reserveTimeout: Number(settings.connect_timeout) * 1000,
    /** the backend of a reserved connection */
    backendOf: (reserved: postgres.ReservedSql<any>) => (reserved as { backend?: Backend }).backend,
    ...heldSessions(),
  };
}

type TenantSessions = ReturnType<typeof tenantSessions>;

/**
 * One-statement tenant reads without a transaction: the statement alone, the way a hand-written
 * server would send it, as safe as a tenant transaction, on tenant sessions opened read-only. A
 * read meets a session known to hold its tenant and to plan as the statement asks (on cached
 * plans, or for its values: held-sessions.ts) and goes alone, or goes right behind the statement
 * that sets the session so, in the same packet; its rows are handed out only when that set-up
 * succeeded (it ran first, on the same session). Row-level security applies as in a tenant
 * transaction (the compiled statement carries its own tenant predicate besides).
 */
async function tenantRead<T>(
  reads: TenantSessions,
  store: RecordStore,
  tenant: string,
  fn: (tx: Session) => Promise<T>,
): Promise<T> {
  const reserved = await reserveWithin(reads.sql, reads.reserveTimeout);
  try {
    return await fn(
      oneStatementSession(store, async <R>(statement: Statement) => {
        const backend = reads.backendOf(reserved);
        const planning = planningOf(statement);
        if (reads.holds(backend, tenant, planning)) return send<R>(reserved, statement);
        const { session, setup } = reads.setting(backend, tenant, planning);
        const results = await settled([...setup.map((s) => send(reserved, s)), send<R>(reserved, statement)]);
        reads.hold(backend, session);
        return results.at(-1) as R[];
      }),
    );
  } finally {
    reserved.release();
  }
}

/**
 * A tenant's transaction on a tenant session (read-write, or read-only for a read): no role to
 * switch, and the tenant set only when the session holds another one, inside the transaction, so
 * that a failed set-up aborts it. Nothing is sent before the work's first statement, which goes
 * with BEGIN (and the set-up): one round trip, as `pipelined`; work that sends none sends
 * nothing. Writing work whose only statement comes last (`commitWith`, a create's insert) on a
 * session that holds its tenant sends that statement alone, without a transaction: a single
 * statement is atomic on its own, and row-level security checks what it writes as in a
 * transaction.
 */
async function tenantTransaction<T>(
  sessions: TenantSessions,
  store: RecordStore,
  tenant: string,
  fn: (tx: Session) => Promise<T>,
  readOnly: boolean,
): Promise<T> {
  const reserved = await reserveWithin(sessions.sql, sessions.reserveTimeout);
  const backend = sessions.backendOf(reserved);
  // changed by the work's calls: typed wide, so that the checks after the work are not narrowed away
  let state = "unsent" as "unsent" | "open" | "ended";
  let opening: Promise<unknown>[] = [];
  let session: ReturnType<TenantSessions["setting"]>["session"] = null;
  /** BEGIN, and the tenant when the session holds another: what the first statement goes behind */
  const open = () => {
    state = "open";
    let setup: Statement[] = [];
    if (!sessions.holds(backend, tenant)) ({ session, setup } = sessions.setting(backend, tenant));
    opening = [readOnly ? BEGIN_READ_ONLY : BEGIN, ...setup].map((s) => send(reserved, s));
    // each is awaited with the statements sent behind it; until then a failure must not count as unhandled
    for (const p of opening) p.catch(() => {});
  };
  const ended = (statement: Statement) =>
    new Error(`A statement after the transaction's last ones: ${toQuery(statement).sql.slice(0, 80)}`);
  /**
   * A read planned for its values, where the session caches plans: between SET LOCALs that plan
   * it so and then give the session's opening mode back (for the foreign-key checks of what the
   * transaction writes after it), all three in one packet. Its error is the one thrown. The
   * session's own mode is switched by one-statement reads only (`tenantRead`): inside a
   * transaction it would hold for the writes' checks too, and go back with a rollback.
   */
  const sendPlanned = async <R>(statement: Statement) => {
    const planned = [PLAN_FOR_VALUES, statement, PLAN_AS_SESSION].map((s) => send<R>(reserved, s));
    return (await settled(planned))[1]!;
  };
  const sendOne = <R>(statement: Statement) =>
    plannedForValues(statement) && !sessions.plansForValues(backend)
      ? sendPlanned<R>(statement)
      : send<R>(reserved, statement);
  try {
    const result = await fn({
      query: async <R = Row>(statement: Statement) => {
        if (state === "ended") throw ended(statement);
        if (state === "unsent") {
          open();
          const results = await settled([...opening, sendOne<R>(statement)]);
          return results.at(-1) as R[];
        }
        try {
          return await sendOne<R>(statement);
        } catch (error) {
          // a failed set-up aborts the transaction: its error says why, the statement's does not
          await settled(opening);
          throw error;
        }
      },
      store,
      commitWith: async (statements) => {
        if (state === "ended") throw new Error("The transaction's last statements were sent already.");
        if (
          state === "unsent" &&
          (statements.length === 0 || (statements.length === 1 && !readOnly && sessions.holds(backend, tenant)))
        ) {
          // nothing to commit, or one statement, atomic on its own
          state = "ended";
          if (statements.length === 1) await send(reserved, statements[0]!);
          return;
        }
        if (state === "unsent") open();
        state = "ended";
        await settled([
          ...opening,
          ...statements.map((statement) => send(reserved, statement)),
          send(reserved, COMMIT),
        ]);
        sessions.hold(backend, session);
      },
    });
    if (state === "open") {
      state = "ended";
      await send(reserved, COMMIT);
      sessions.hold(backend, session);
    }
    return result;
  } catch (error) {
    // after its last statements the transaction is over: committed, or rolled back by its COMMIT
    if (state === "open") await send(reserved, ROLLBACK).catch(() => {});
    throw error;
  } finally {
    reserved.release();
  }
}

/**
 * The mode `asked` for (PostgresOptions.pooler), settled against what the URL reaches: a probe
 * connection without startup parameters, which every pooler accepts, tells whether a pooler
 * answers (pooler-mode.ts). Session mode behind one is refused rather than run: its sessions'
 * role and tenant would be another client's next transaction.
 */
async function poolerMode(
  url: string,
  base: postgres.Options<{}>,
  asked: Required<PostgresOptions>["pooler"],
): Promise<PoolerMode> {
  if (asked === "transaction") return "transaction";
  const probe = postgres(url, { ...base, max: 1, prepare: false });
  const pooled = await behindPooler(probe).finally(() => probe.end({ timeout: 1 }));
  if (asked === "auto") return pooled === false ? "session" : "transaction";
  if (pooled)
    throw new Error(
      "DATABASE_POOLER=session behind a connection pooler (its cancel key is not the backend's): the sessions' role and tenant would reach other clients' transactions. Use DATABASE_POOLER=transaction (or auto), or connect to PostgreSQL directly.",
    );
  return "session";
}

export async function openPostgres(url: string, options: PostgresOptions & StoreOptions = {}): Promise<Database> {
  const { changeLog, ...postgresOptions } = options;
  const o = { ...defaultPostgresOptions, ...postgresOptions };
  const base: postgres.Options<{}> = {
    max: o.max,
    onnotice: () => {},
    types: { asText } as any,
    connect_timeout: o.connectTimeout / 1000,
    backoff: reconnectDelay,
    ...sessionTarget(url),
  };
  const gate = new PoolGate(o.max, o.poolTimeout);
  // chosen at the first operation, as a connection is made then: opening stays free of I/O, and a
  // server not yet reachable fails that operation as any other (a failed choice is made again)
  let work: Work | undefined;
  let choosing: Promise<Work> | undefined;
  const ready = () =>
    (choosing ??= poolerMode(url, base, o.pooler).then(
      (mode) => (work = mode === "transaction" ? transactionScoped(url, base, o) : sessionScoped(url, base, o)),
      (error: unknown) => {
        choosing = undefined;
        throw error;
      },
    ));
  // autovacuum analyzes whole tables; growth needs the tenant column's statistics sooner
  const store = analyzingGrowth(
    tableStore(changeLog !== false),
    (statement) => (work ? work.analyze(statement) : ready().then((w) => w.analyze(statement))),
    "tenant column",
  );
  return {
    driver: "postgres",
    store,
    query: (statement) => gate.run(() => (work ? work.query(statement) : ready().then((w) => w.query(statement)))),
    transaction: (fn, options) =>
      gate.run(() =>
        work ? work.transaction(store, fn, options) : ready().then((w) => w.transaction(store, fn, options)),
      ),
    close: async () => {
      await (work ?? (await choosing?.catch(() => undefined)))?.close();
    },
    stats: () => gate.stats(),
  };
}

/** what each mode serves a Database with, inside the pool gate */
interface Work {
  query<R>(statement: Statement): Promise<R[]>;
  transaction<T>(
    store: RecordStore,
    fn: (tx: Session) => Promise<T>,
    options: TransactionOptions | undefined,
  ): Promise<T>;
  /** a statement of the growth statistics (table-growth.ts), on the owner's connections */
  analyze(statement: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Transaction mode (pooler-mode.ts): one pool, whose connections carry no startup parameter and
 * no prepared statement; each transaction opens with the set-up of its role, tenant and limits,
 * in one packet with BEGIN and its first statement, and for a one-statement read with COMMIT
 * too (`pipelined`). A statement outside a transaction goes alone, under the server's limits
 * (the owner's ANALYZE, CREATE INDEX CONCURRENTLY, which cannot run in one).
 */
function transactionScoped(url: string, base: postgres.Options<{}>, o: Required<PostgresOptions>): Work {
  const pool = replaceablePool(
    (turn) => postgres(url, { ...base, ...startingAt(url, turn), prepare: false }),
    END_TIMEOUT_S,
  );
  // a write that finds its server read-only replaces the pool (leave-read-only-servers.ts)
  const writing = leavingReadOnlyServers([pool]);
  const setups = transactionSetups(o);
  /** the sessions that ran RAISE_MALLOC_THRESHOLDS, as `tenantSessions` records them */
  const tuned = new WeakMap<Backend, Backend>();
  /**
   * A tenant's set-up, behind RAISE_MALLOC_THRESHOLDS on a connection that has not sent it: on a
   * direct connection that is its backend's first tenant transaction; behind a pooler, whichever
   * server session the transaction meets (a pooler's own start-up query can tune each: docs).
   */
  const tenantSetup = (tenant: string) => (reserved: postgres.ReservedSql<any>) => {
    const backend = (reserved as { backend?: Backend }).backend;
    if (!backend || current(tuned.get(backend), backend)) return setups.tenant(tenant, false);
    if (backend.pid !== null) tuned.set(backend, { pid: backend.pid, secret: backend.secret });
    return setups.tenant(tenant, true);
  };
  const run = <T>(options: TransactionOptions | undefined, work: () => Promise<T>) =>
    options?.readOnly ? work() : writing(work);
  return {
    query: <R>(statement: Statement) => writing(() => alone<R>(pool.sql, statement, o.connectTimeout, sendUnnamed)),
    analyze: (statement) => pool.sql.unsafe(statement).execute(),
    transaction: (store, fn, options) =>
      run(options, () =>
        pipelined(
          pool.sql,
          store,
          fn,
          {
            ...options,
            // the tenant's set-up is the driver's own, with the limits: the one given sets role and tenant only
            setup: options?.tenant !== undefined ? tenantSetup(options.tenant) : (options?.setup ?? setups.owner),
          },
          o.connectTimeout,
          sendUnnamed,
        ),
      ),
    close: () => pool.end(),
  };
}

/**
 * Session mode: the owner's pool, and two pools of tenant sessions that keep their role and
 * tenant (`tenantSessions`), with the limits and the plan mode as startup parameters. Each
 * statement is planned as it asks (SqlQuery.planForValues), not as its pool's: a statement that
 * asks nothing runs as PostgreSQL chooses, which caches the plans of lookups by key and inserts.
 */
function sessionScoped(url: string, base: postgres.Options<{}>, o: Required<PostgresOptions>): Work {
  const settings: postgres.Options<{}> = {
    ...base,
    prepare: true,
    // sent with the startup message, so they hold from a connection's first statement on
    connection: {
      // PostgreSQL's default, whatever the server's: the plans of what a session runs most, the
      // foreign-key checks of each inserted row's references included, are cached (forced custom
      // plans cost an insert that checks references 1.6x PostgreSQL's time, two thirds of its CPU
      // in a $batch import of orders with lines); a read whose plan depends on its values is
      // planned for them by statement (held-sessions.ts, `tenantTransaction`, `sendAsAsked`)
      plan_cache_mode: OPENING_PLANNING,
      statement_timeout: o.statementTimeout,
      lock_timeout: o.lockTimeout,
      idle_in_transaction_session_timeout: o.idleInTransactionTimeout,
    },
  };
  const main = replaceablePool((turn) => postgres(url, { ...settings, ...startingAt(url, turn) }), END_TIMEOUT_S);
  const reads = tenantSessions(url, settings, true);
  const writes = tenantSessions(url, settings, false);
  // a write that finds its server read-only replaces every pool: the reads' server was demoted too
  const writing = leavingReadOnlyServers([main, reads.pool, writes.pool]);
  const run = <T>(options: TransactionOptions | undefined, work: () => Promise<T>) =>
    options?.readOnly ? work() : writing(work);
  return {
    query: <R>(statement: Statement) => writing(() => alone<R>(main.sql, statement, o.connectTimeout)),
    analyze: (statement) => main.sql.unsafe(statement).execute(),
    transaction: (store, fn, options) =>
      run(options, () =>
        options?.tenant !== undefined && options.readOnly && options.oneStatement
          ? tenantRead(reads, store, options.tenant, fn)
          : options?.tenant !== undefined
            ? // a read of several statements (an owned item's owner checked first) on the read sessions
              tenantTransaction(options.readOnly ? reads : writes, store, options.tenant, fn, options.readOnly ?? false)
            : options?.setup !== undefined
              ? pipelined(main.sql, store, fn, { ...options, setup: options.setup }, o.connectTimeout)
              : awaited(main.sql, store, fn, options?.readOnly ?? false, o.connectTimeout),
      ),
    close: async () => {
      await Promise.all([main.end(), reads.pool.end(), writes.pool.end()]);
    },
  };
}
