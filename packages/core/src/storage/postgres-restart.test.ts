/**
 * The PostgreSQL driver when its server goes away, on a throwaway cluster
 * (packages/test-kit/src/postgres-cluster.ts). Plain postgres.js 3.4.9, before the fixes of its
 * fork @bizdata/postgres, writes a transaction's rollback (or a reserved connection's next query)
 * into the socket that just closed and throws from a timer: an uncaught exception, which vitest
 * reports as an unhandled error and fails the run. And a reservation (`sql.reserve()`, which the
 * tenant transactions use) waiting while the pool reconnected was handed to a connection that
 * dropped it: the connection never came back, and after a restart the pool served fewer
 * transactions at a time, down to none. And a socket that failed (ECONNRESET) emits 'error' at
 * once but 'close' only once its handle has closed: a query handed to the connection in between
 * (a transaction's rollback, sent from the handler of the statement the error failed) was never
 * answered, and the request waiting for it hung.
 *
 * Core is imported by its entry points, not its modules: the pack test (test/package) runs this
 * file as it is against the packed packages installed with npm.
 */
import { connect, type Socket } from "node:net";
import { APP_ROLE, type Database, type Session } from "@bizdata/core";
import { openPostgres } from "@bizdata/core/postgres";
import postgres from "@bizdata/postgres";
import { type Cluster, missingBinaries, startCluster } from "@bizdata/test-kit/postgres-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const missing = await missingBinaries();
if (missing) console.warn(`skipping the PostgreSQL restart tests: ${missing}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the pid of the backend serving `run`'s connection, once `run` has started */
async function backendOf(run: (report: (pid: number) => void) => Promise<unknown>) {
  let pid: number | undefined;
  const settled = run((p) => {
    pid = p;
  }).then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  for (let i = 0; i < 100 && pid === undefined; i++) await new Promise((r) => setTimeout(r, 20));
  if (pid === undefined) throw new Error("the connection never reported its backend pid");
  return { pid, settled };
}

describe.skipIf(missing !== undefined)("postgres.js when its server goes away", () => {
  let cluster: Cluster;
  let sql: postgres.Sql;
  let admin: postgres.Sql;

  beforeAll(async () => {
    cluster = await startCluster();
    sql = postgres(cluster.url, { max: 2, onnotice: () => {} });
    admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await Promise.all([sql?.end({ timeout: 1 }), admin?.end({ timeout: 1 })]);
    await cluster?.destroy();
  });

  it("rejects a transaction whose backend dies, and the pool serves the next query", async () => {
    const { pid, settled } = await backendOf((report) =>
      sql.begin(async (tx) => {
        const [row] = await tx`select pg_backend_pid() as pid`;
        report(row!.pid);
        await tx`select pg_sleep(5)`;
      }),
    );
    await admin`select pg_terminate_backend(${pid})`;
    const outcome = await settled;
    expect(outcome.ok).toBe(false);
    expect(outcome).toMatchObject({ error: { code: expect.stringMatching(/^(57P01|CONNECTION_CLOSED)$/) } });
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it("fails a dead reserved connection's next query, and its release leaves the pool whole", async () => {
    const reserved = await sql.reserve();
    const [row] = await reserved`select pg_backend_pid() as pid`;
    await admin`select pg_terminate_backend(${row!.pid})`;
    await new Promise((r) => setTimeout(r, 100));
    await expect(reserved`select 1`).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    reserved.release();
    const answers = await Promise.all([1, 2, 3, 4].map((n) => sql`select ${n}::int as n`));
    expect(answers.map(([a]) => a!.n)).toEqual([1, 2, 3, 4]);
  });

  it("fails a query sent between its socket's error and close, and the pool serves again", async () => {
    let socket: Socket | undefined;
    // postgres.js's `socket` option (its README: Custom socket) is missing from its types
    const options: postgres.Options<{}> & { socket: () => Socket } = {
      max: 1,
      onnotice: () => {},
      socket: () => (socket = connect(cluster.port, "127.0.0.1")),
    };
    const pool = postgres(cluster.url, options);
    try {
      const reserved = await pool.reserve();
      const [row] = await reserved`select pg_backend_pid() as pid`;
      const running = reserved`select pg_sleep(10)`.execute();
      // the handler of the failed statement sends the next one, as a transaction sends its rollback
      const next = running.then(
        () => undefined,
        () => reserved`select 1`,
      );
      // the statement is on the server before the socket fails under it
      for (let i = 0; i < 100; i++) {
        const [activity] = await admin`select query from pg_stat_activity where pid = ${row!.pid}`;
        if (activity?.query.includes("pg_sleep")) break;
        await sleep(20);
      }
      socket!.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
      await expect(running).rejects.toMatchObject({ code: "ECONNRESET" });
      await expect(next).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      reserved.release();
      expect(await pool`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await pool.end({ timeout: 1 });
    }
  });

  it("fetches the array types again when the connection closes under that fetch, leaving nothing unhandled", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    let sockets = 0;
    // the first socket fails as the client sends the array-type query it makes on connecting
    const options: postgres.Options<{}> & { socket: () => Socket } = {
      max: 1,
      onnotice: () => {},
      socket: () => {
        const socket = connect(cluster.port, "127.0.0.1");
        if (sockets++ === 0) {
          const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
          socket.write = ((chunk: unknown, ...rest: unknown[]) => {
            if (String(chunk).includes("pg_catalog.pg_type")) {
              socket.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
              return false;
            }
            return write(chunk, ...rest);
          }) as Socket["write"];
        }
        return socket;
      },
    };
    const pool = postgres(cluster.url, options);
    try {
      const reserved = await pool.reserve().catch((err: unknown) => err);
      if (!(reserved instanceof Error)) (reserved as postgres.ReservedSql).release();
      // served on the second socket, with the array types fetched there
      expect(await pool`select array[1, 2]::int[] as a`).toEqual([{ a: [1, 2] }]);
      await sleep(50);
      expect(sockets).toBe(2);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
      await pool.end({ timeout: 1 });
    }
  });

  it("leaves a connection that closed while reserved to the reservation it serves next", async () => {
    const pool = postgres(cluster.url, { max: 1, onnotice: () => {} });
    try {
      const first = await pool.reserve();
      const [row] = await first`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${row!.pid})`;
      for (let i = 0; i < 100; i++) {
        if ((await admin`select 1 from pg_stat_activity where pid = ${row!.pid}`).length === 0) break;
        await sleep(20);
      }
      await expect(first`select 1`).rejects.toMatchObject({ code: expect.any(String) });
      // the pool's only connection opens again for the next reservation; the first one's release
      // comes after that and must not hand it back to the pool under the second
      const second = await pool.reserve();
      first.release();
      await second`select 1`;
      let third: postgres.ReservedSql | undefined;
      const waiting = pool.reserve().then((r) => {
        third = r;
        return r;
      });
      await second`select 1`;
      expect(third).toBeUndefined();
      second.release();
      (await waiting).release();
    } finally {
      await pool.end({ timeout: 1 });
    }
  });

  const setup = { sql: "SELECT set_config('app.tenant_id', $1, true)", params: ["restart"] } as const;
  const insert = (table: string, id: number) => ({ sql: `INSERT INTO ${table} (id) VALUES ($1)`, params: [id] });
  /** an insert and a statement after it, or the insert as the work's one last statement */
  const twoStatements = async (tx: Session, table: string, id: number) => {
    await tx.query(insert(table, id));
    await tx.query({ sql: "SELECT pg_sleep(0.002)", params: [] });
  };
  const oneLast = (tx: Session, table: string, id: number) => tx.commitWith!([insert(table, id)]);

  // transactions awaited step by step (sql.begin), ones whose set-up is sent with BEGIN and the
  // first statement on a reserved connection, and a tenant's on the sessions that keep their
  // tenant (tenant-scope.ts), where a write whose one statement is its last goes alone
  describe.each([
    ["awaited", "restart_load", undefined, twoStatements],
    ["pipelined", "restart_load_pipelined", { setup }, twoStatements],
    ["tenant", "restart_load_tenant", { tenant: "restart", setup }, twoStatements],
    ["one-statement tenant", "restart_load_alone", { tenant: "restart", setup }, oneLast],
  ])("an immediate restart under a load of %s transactions", (_, table, options, write) => {
    let db: Database;
    const transaction = <T>(fn: (tx: Session) => Promise<T>) => db.transaction(fn, options);
    beforeAll(async () => {
      db = await openPostgres(cluster.url, { max: 4 });
      await db.query({ sql: `CREATE TABLE ${table} (id int PRIMARY KEY)`, params: [] });
      // the role a tenant's sessions are opened in (migrate creates it in a real database)
      await db.query({
        sql: `DO $$ BEGIN CREATE ROLE ${APP_ROLE} NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
        params: [],
      });
      await db.query({ sql: `GRANT SELECT, INSERT ON ${table} TO ${APP_ROLE}`, params: [] });
    });
    afterAll(() => db?.close());

    it("settles every transaction and keeps every acknowledged row", { timeout: 120_000 }, async () => {
      const acknowledged: number[] = [];
      let next = 0;
      let done = false;
      // bounded by need, not by count: the load runs until the pool has served again after the
      // restart, so a slow (loaded) machine takes longer instead of running out of transactions
      const worker = async () => {
        while (!done) {
          const id = next++;
          try {
            await transaction((tx) => write(tx, table, id));
            acknowledged.push(id);
          } catch {
            // refused while the server restarts; counted by absence
            await sleep(5);
          }
        }
      };
      const load = Promise.all([1, 2, 3, 4, 5, 6].map(worker));
      const until = async (count: number) => {
        while (acknowledged.length < count) await sleep(10);
      };
      await until(50);
      await cluster.restartImmediately();
      const before = acknowledged.length;
      await until(before + 50);
      done = true;
      await load;
      const stored = await db.query<{ id: number }>({ sql: `SELECT id FROM ${table}`, params: [] });
      const ids = new Set(stored.map((r) => r.id));
      expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
      // and no connection was lost to the pool on the way: twice as many transactions as it has
      // connections all get one (a stranded one would leave some waiting past the test's timeout)
      const after = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7, 8].map(() => transaction((tx) => tx.query({ sql: "SELECT 1 AS one", params: [] }))),
      );
      expect(after.flat()).toHaveLength(8);
    });

    it("serves again within 2 s of the server's start after a 3 s stop", async () => {
      const inserted = (id: number) => transaction((tx) => write(tx, table, id));
      let id = 1_000_000;
      let stopped = true;
      // requests keep coming while the server is down: each failed attempt counts toward the backoff
      const knocking = (async () => {
        for (let i = 0; i < 1000 && stopped; i++) await inserted(id++).catch(() => sleep(10));
      })();
      await cluster.stop();
      await sleep(3000);
      await cluster.start();
      const back = Date.now();
      stopped = false;
      await knocking;
      let served: number | undefined;
      for (let i = 0; i < 100 && served === undefined; i++) {
        try {
          await inserted(id++);
          served = Date.now() - back;
        } catch {
          await sleep(20);
        }
      }
      expect(served).toBeLessThan(2000);
      const after = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7, 8].map(() => transaction((tx) => tx.query({ sql: "SELECT 1 AS one", params: [] }))),
      );
      expect(after.flat()).toHaveLength(8);
    });
  });
});
