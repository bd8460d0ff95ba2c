/**
 * The read routing over fake databases and a clock of the test's own: which pool serves what, the
 * staleness rule, the lag bound, and a replica that goes away. The same over a real primary and
 * standby: packages/host/src/lifecycle/read-replicas.test.ts.
 */
import { describe, expect, it } from "vitest";
import { type Database, type Session, type TransactionOptions, toQuery } from "./database.js";
import { type ReadRouting, routeReads } from "./read-replicas.js";
import type { RecordStore } from "./record-port.js";
import { walPosition } from "./replica-freshness.js";

interface Fake extends Database {
  /** the WAL position its check reads (a replica's: replayed; null: not in recovery), or the error it fails with */
  position: string | null | Error;
  /** what the next reads' statement fails with */
  failReads: Error | undefined;
}

const dbError = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

/** a database that answers the position checks, and answers every other statement with its own name in `log` */
function fake(name: string, log: string[], position: string): Fake {
  const session: Session = {
    query: async <R>(statement: Parameters<Session["query"]>[0]) => {
      log.push(`${name}: ${toQuery(statement).sql}`);
      if (db.failReads) throw db.failReads;
      return [{ servedBy: name }] as R[];
    },
    store: {} as RecordStore,
  };
  const db: Fake = {
    driver: "postgres",
    position,
    failReads: undefined,
    store: session.store,
    query: async <R>(statement: Parameters<Session["query"]>[0]) => {
      const { sql } = toQuery(statement);
      if (!sql.includes("_lsn()")) return session.query<R>(statement);
      if (db.position instanceof Error) throw db.position;
      return [{ position: db.position, standby: db.position !== null }] as R[];
    },
    transaction: (fn) => fn(session),
    close: async () => {},
    stats: () => ({ size: 10, busy: 0, waiting: 0 }),
  };
  return db;
}

const READ: TransactionOptions = { tenant: "t1", readOnly: true, oneStatement: true };
const STATEMENT = { sql: "SELECT 1", params: [] };

/** a primary and `count` replicas, all at 0/10, routed with a clock the test moves */
function setUp(count: number, maxLag = 1_000) {
  const log: string[] = [];
  const primary = fake("primary", log, "0/10");
  const replicas = Array.from({ length: count }, (_, i) => fake(`replica${i + 1}`, log, "0/10"));
  const clock = { now: 0 };
  // the checks come from the test: the timer's first is after an hour
  const db = routeReads(primary, replicas, { maxLag, checkInterval: 3_600_000 }, () => clock.now);
  const routing = db.routing;
  /** which database served a one-statement read of `view` */
  const readOn = async (view: Database = db) => {
    const [row] = await view.transaction((tx) => tx.query<{ servedBy: string }>(STATEMENT), READ);
    return row!.servedBy;
  };
  /** a write of `view`, at `at` */
  const writeAt = async (view: Database, at: number) => {
    clock.now = at;
    await view.transaction((tx) => tx.query({ sql: "INSERT INTO t VALUES (1)", params: [] }), { tenant: "t1" });
  };
  const checkAt = async (at: number) => {
    clock.now = at;
    await routing.check();
  };
  return { log, primary, replicas, clock, db, routing, readOn, writeAt, checkAt };
}

const client = (routing: ReadRouting, name: string) => routing.forClient(() => name);

describe("routeReads", () => {
  it("sends a tenant's one-statement reads to the replicas in turn, and everything else to the primary", async () => {
    const { db, log, readOn, checkAt, routing } = setUp(2);
    await checkAt(10);
    expect([await readOn(), await readOn(), await readOn()]).toEqual(["replica1", "replica2", "replica1"]);
    log.length = 0;
    const on = (options?: TransactionOptions) => db.transaction((tx) => tx.query(STATEMENT), options);
    await on({ tenant: "t1" }); // a write
    await on({ tenant: "t1", readOnly: true }); // a read of several statements (an owner checked first)
    await on({ readOnly: true, oneStatement: true }); // not a tenant's
    await on(); // the host's own tables
    await db.query(STATEMENT);
    expect(log).toEqual(Array(5).fill("primary: SELECT 1"));
    expect(routing.pools().map(({ name, reads }) => [name, reads])).toEqual([
      ["primary", 0],
      ["replica1", 2],
      ["replica2", 1],
    ]);
  });

  it("reads a client's data from the primary after its write, until a replica replayed a position the primary had after it", async () => {
    const { primary, replicas, readOn, writeAt, checkAt, routing } = setUp(1);
    await checkAt(0);
    await writeAt(client(routing, "alice"), 10);
    primary.position = "0/20";
    expect(await readOn(client(routing, "alice"))).toBe("primary");
    // another client is not held to alice's write
    expect(await readOn(client(routing, "bob"))).toBe("replica1");
    // a check after the write, the replica not there yet
    await checkAt(100);
    expect(await readOn(client(routing, "alice"))).toBe("primary");
    // a replica that has what the primary had at 100 has alice's write of 10
    replicas[0]!.position = "0/20";
    await checkAt(200);
    expect(await readOn(client(routing, "alice"))).toBe("replica1");
  });

  it("keeps the reads of a request on the primary after a write in it", async () => {
    const { readOn, writeAt, checkAt, routing } = setUp(1);
    await checkAt(0);
    const request = client(routing, "alice");
    expect(await readOn(request)).toBe("replica1");
    await writeAt(request, 10);
    await checkAt(100);
    // the replica has the write (the position did not move), yet the request stays where it wrote
    expect(await readOn(client(routing, "alice"))).toBe("replica1");
    expect(await readOn(request)).toBe("primary");
  });

  it("skips a replica that lags beyond the bound and uses it again once it caught up", async () => {
    const { primary, replicas, readOn, checkAt, routing, clock } = setUp(1, 1_000);
    await checkAt(0);
    primary.position = "0/30";
    await checkAt(500);
    expect(await readOn()).toBe("replica1");
    await checkAt(1_200);
    expect(await readOn()).toBe("primary");
    expect(routing.pools()[1]!.replica).toEqual({ state: "lagging", lagSeconds: 1.2, fallbacks: 0 });
    // it caught up with what the primary had at the check of 1200
    replicas[0]!.position = "0/30";
    await checkAt(1_200);
    expect(routing.pools()[1]!.replica).toEqual({ state: "up", lagSeconds: 0, fallbacks: 0 });
    clock.now = 1_300;
    expect(await readOn()).toBe("replica1");
  });

  it("skips a replica that is down or not a standby", async () => {
    const { replicas, readOn, checkAt, routing } = setUp(1);
    replicas[0]!.position = dbError("ECONNREFUSED");
    await checkAt(0);
    expect(await readOn()).toBe("primary");
    expect(routing.pools()[1]!.replica?.state).toBe("down");
    replicas[0]!.position = null;
    await checkAt(100);
    expect(await readOn()).toBe("primary");
    expect(routing.pools()[1]!.replica?.state).toBe("not a standby");
    replicas[0]!.position = "0/10";
    await checkAt(200);
    expect(await readOn()).toBe("replica1");
  });

  it("serves a read on the primary when its replica cannot, and skips a replica it found gone until a check reaches it", async () => {
    const { replicas, readOn, checkAt, routing, log } = setUp(2);
    await checkAt(0);
    replicas[0]!.failReads = dbError("57P01");
    // a standby cancels a statement that conflicts with replaying: retried, the replica stays in use
    replicas[1]!.failReads = dbError("40001");
    log.length = 0;
    expect([await readOn(), await readOn()]).toEqual(["primary", "primary"]);
    expect(log).toEqual(["replica1: SELECT 1", "primary: SELECT 1", "replica2: SELECT 1", "primary: SELECT 1"]);
    expect(routing.pools().map((p) => p.replica && [p.replica.state, p.replica.fallbacks])).toEqual([
      undefined,
      ["down", 1],
      ["up", 1],
    ]);
    replicas[1]!.failReads = undefined;
    expect([await readOn(), await readOn()]).toEqual(["replica2", "replica2"]);
    replicas[0]!.failReads = undefined;
    await checkAt(100);
    expect([await readOn(), await readOn()]).toEqual(["replica1", "replica2"]);
  });

  it("fails a read whose statement failed for a reason of its own, without asking the primary", async () => {
    const { replicas, readOn, checkAt, log } = setUp(1);
    await checkAt(0);
    const error = dbError("42P01");
    replicas[0]!.failReads = error;
    log.length = 0;
    await expect(readOn()).rejects.toBe(error);
    expect(log).toEqual(["replica1: SELECT 1"]);
  });

  it("reports each pool", async () => {
    const { readOn, checkAt, routing } = setUp(1);
    await checkAt(0);
    await readOn();
    expect(routing.pools()).toEqual([
      { name: "primary", stats: { size: 10, busy: 0, waiting: 0 }, reads: 0 },
      {
        name: "replica1",
        stats: { size: 10, busy: 0, waiting: 0 },
        reads: 1,
        replica: { state: "up", lagSeconds: 0, fallbacks: 0 },
      },
    ]);
  });
});

describe("walPosition", () => {
  it("orders positions as PostgreSQL does, and refuses anything else", () => {
    expect(walPosition("0/3016038") < walPosition("0/30160D8")).toBe(true);
    expect(walPosition("1/0") > walPosition("0/FFFFFFFF")).toBe(true);
    expect(walPosition("16/B374D848")).toBe(0x16b374d848n);
    expect(() => walPosition("16")).toThrow('"16" is not a WAL position.');
  });
});
