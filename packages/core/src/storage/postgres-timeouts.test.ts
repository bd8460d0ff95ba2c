/**
 * Every wait of the PostgreSQL driver is bounded: connecting, a free connection, a statement, a
 * lock, a transaction left idle; each failure is one the host answers 503 (transient-errors.ts).
 * On a throwaway cluster (packages/test-kit/src/postgres-cluster.ts).
 */
import { createServer, type Server, type Socket } from "node:net";
import { type Cluster, missingBinaries, startCluster } from "@bizdata/test-kit/postgres-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "./database.js";
import { openPostgres } from "./postgres-database.js";
import { isTransientDatabaseError } from "./transient-errors.js";

const missing = await missingBinaries();
if (missing) console.warn(`skipping the PostgreSQL timeout tests: ${missing}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the rejection of `work`, checked to be one the host answers 503 */
async function transientFailure(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => {
      throw new Error("expected the operation to fail");
    },
    (e: unknown) => e,
  );
  expect(isTransientDatabaseError(error)).toBe(true);
  return (error as { code: string }).code;
}

describe.skipIf(missing !== undefined)("the PostgreSQL driver's bounded waits", () => {
  let cluster: Cluster;
  let db: Database;
  const opened: Database[] = [];
  const open = async (options: Parameters<typeof openPostgres>[1], url = cluster.url) => {
    const d = await openPostgres(url, options);
    opened.push(d);
    return d;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    db = await open({ max: 2 });
    await db.query({ sql: "CREATE TABLE timeout_lock (id int PRIMARY KEY, n int)", params: [] });
    await db.query({ sql: "INSERT INTO timeout_lock VALUES (1, 0)", params: [] });
  });
  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
    await cluster?.destroy();
  });

  it("cancels a statement that runs past the statement timeout", async () => {
    const short = await open({ max: 1, statementTimeout: 200 });
    expect(await transientFailure(short.query({ sql: "SELECT pg_sleep(3)", params: [] }))).toBe("57014");
    expect(await short.query({ sql: "SELECT 1 AS one", params: [] })).toEqual([{ one: 1 }]);
  });

  it("fails an operation that waits for a free connection past the pool timeout, without running it", async () => {
    const one = await open({ max: 1, poolTimeout: 200 });
    const holding = one.transaction((tx) => tx.query({ sql: "SELECT pg_sleep(1)", params: [] }));
    await sleep(50);
    const waiting = one.transaction((tx) =>
      tx.query({ sql: "UPDATE timeout_lock SET n = n + 100 WHERE id = 1", params: [] }),
    );
    expect(await transientFailure(waiting)).toBe("POOL_TIMEOUT");
    await holding;
    await sleep(100);
    const [row] = await one.query<{ n: number }>({ sql: "SELECT n FROM timeout_lock WHERE id = 1", params: [] });
    expect(row!.n).toBeLessThan(100);
  });

  it("gives up a lock wait past the lock timeout", async () => {
    const impatient = await open({ max: 1, lockTimeout: 200 });
    const holding = db.transaction(async (tx) => {
      await tx.query({ sql: "SELECT * FROM timeout_lock WHERE id = 1 FOR UPDATE", params: [] });
      await tx.query({ sql: "SELECT pg_sleep(1)", params: [] });
    });
    await sleep(100);
    const blocked = impatient.transaction((tx) =>
      tx.query({ sql: "UPDATE timeout_lock SET n = n + 1 WHERE id = 1", params: [] }),
    );
    expect(await transientFailure(blocked)).toBe("55P03");
    await holding;
  });

  it("ends a transaction left idle past the idle-in-transaction timeout", async () => {
    const idle = await open({ max: 1, idleInTransactionTimeout: 200 });
    const abandoned = idle.transaction(async (tx) => {
      await tx.query({ sql: "UPDATE timeout_lock SET n = n + 1000 WHERE id = 1", params: [] });
      await sleep(600);
      await tx.query({ sql: "SELECT 1", params: [] });
    });
    await transientFailure(abandoned);
    const [row] = await db.query<{ n: number }>({ sql: "SELECT n FROM timeout_lock WHERE id = 1", params: [] });
    expect(row!.n).toBeLessThan(1000);
    // the pool replaces the connection the server closed
    expect(await idle.query({ sql: "SELECT 1 AS one", params: [] })).toEqual([{ one: 1 }]);
  });

  describe("a server that accepts connections and never answers", () => {
    let silent: Server;
    let url: string;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const address = silent.address();
      url = `postgres://postgres@127.0.0.1:${typeof address === "object" && address ? address.port : 0}/postgres`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it("fails the connection attempt after the connect timeout", async () => {
      const mute = await open({ max: 1, connectTimeout: 300 }, url);
      expect(await transientFailure(mute.query({ sql: "SELECT 1", params: [] }))).toBe("CONNECT_TIMEOUT");
    });
  });
});
