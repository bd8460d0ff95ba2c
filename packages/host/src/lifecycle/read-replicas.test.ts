/**
 * Issue 37's read replicas as a test: a host started on a throwaway primary with a streaming hot
 * standby as DATABASE_READ_URL (packages/test-kit/src/postgres-cluster.ts), over HTTP. Reads go
 * to the standby (told by the pool that answered them, and by a row the standby has not replayed
 * yet), a client reads its own write at once, a standby whose replay is paused is skipped once it
 * lags beyond the bound, and a standby that stops while 30 clients read at once costs none of
 * their reads.
 */
import { sampleModel } from "@bizdata/examples";
import postgres from "@bizdata/postgres";
import {
  type Cluster,
  missingReplicationBinaries,
  startCluster,
  startStandby,
} from "@bizdata/test-kit/postgres-cluster";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { signInOver, sleep } from "@bizdata/test-kit/write-load";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { startHost } from "../server.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const missing = await missingReplicationBinaries();
if (missing) console.warn(`skipping the read replica tests: ${missing}`);

const TENANT = "replicas";
const PASSWORD = "correct horse battery staple";
/** how long the standby holds back each transaction it replays, while a test needs it behind */
const APPLY_DELAY_MS = 4000;
/** DATABASE_READ_MAX_LAG_MS: above the apply delay, so a standby held back that long still serves */
const MAX_LAG_MS = 6000;

describe.skipIf(missing !== undefined)("a host reading from a streaming replica", () => {
  let primary: Cluster;
  let standby: Cluster;
  let host: Awaited<ReturnType<typeof startHost>>;
  const tokens: Record<string, string> = {};

  const request = (user: string, path: string, init: RequestInit = {}) =>
    fetch(`${host.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${tokens[user]}`, "content-type": "application/json", ...init.headers },
    });
  /** one-statement reads each pool answered so far */
  const reads = async () => {
    const text = await (await fetch(`${host.url}/metrics`)).text();
    return {
      primary: sample(text, "bizdata_db_reads_total", { pool: "primary" }),
      replica: sample(text, "bizdata_db_reads_total", { pool: "replica1" }),
      fallbacks: sample(text, "bizdata_db_replica_fallbacks_total", { pool: "replica1" }),
    };
  };
  const replicaState = async () => {
    const body = (await (await fetch(`${host.url}/health/ready`)).json()) as { replicas: { state: string }[] };
    return body.replicas[0]!.state;
  };
  const until = async (condition: () => Promise<boolean>, timeoutMs: number) => {
    for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(50)) if (await condition()) return true;
    return false;
  };
  /** `work` with a connection to the standby */
  const onStandby = async <T>(work: (sql: postgres.Sql) => Promise<T>) => {
    const sql = postgres(standby.url, { max: 1, onnotice: () => {} });
    try {
      return await work(sql);
    } finally {
      await sql.end();
    }
  };
  /** recovery_min_apply_delay on the standby, once it holds */
  const applyDelay = (ms: number) =>
    onStandby(async (sql) => {
      await sql.unsafe(`ALTER SYSTEM SET recovery_min_apply_delay = '${ms}ms'`);
      await sql`SELECT pg_reload_conf()`;
      const applied = async () => {
        const [row] = await sql`SELECT setting FROM pg_settings WHERE name = 'recovery_min_apply_delay'`;
        return row!.setting === String(ms);
      };
      expect(await until(applied, 5000)).toBe(true);
    });
  const createProduct = async (user: string, sku: string) => {
    const res = await request(user, "/api/Product", { method: "POST", body: JSON.stringify({ SKU: sku, Price: 1 }) });
    expect(res.status).toBe(201);
    return new URL(res.headers.get("location")!, host.url).pathname;
  };

  beforeAll(async () => {
    primary = await startCluster();
    standby = await startStandby(primary, "replica1");
    const config = loadConfig({
      DATABASE_URL: primary.url,
      DATABASE_READ_URL: standby.url,
      DATABASE_READ_CHECK_INTERVAL_MS: "100",
      DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      DATABASE_POOL_SIZE: "4",
      PORT: "0",
      LOG_LEVEL: "silent",
      RATE_LIMIT_PER_TOKEN: "0",
      RATE_LIMIT_PER_ADDRESS: "0",
    });
    host = await startHost(config, { model: sampleModel });
    await createTenant(host.db, TENANT);
    for (const user of ["writer", "other"]) {
      await setUser(host.db, TENANT, user, PASSWORD, ["admin"]);
      tokens[user] = await signInOver(host.url, TENANT, user, PASSWORD);
    }
    // the standby has replayed the schema and the tenant
    expect(await until(async () => (await replicaState()) === "up", 20_000)).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await host?.close(0);
    await standby?.destroy();
    await primary?.destroy();
  });

  it("tells each pool in the health detail and the metrics", async () => {
    const ready = await fetch(`${host.url}/health/ready`);
    const body = (await ready.json()) as { replicas: { lagSeconds: number }[] };
    expect([ready.status, body]).toEqual([
      200,
      { status: "ready", replicas: [{ name: "replica1", state: "up", lagSeconds: expect.any(Number) }] },
    ]);
    expect(body.replicas[0]!.lagSeconds).toBeLessThan(MAX_LAG_MS / 1000);
    const text = await (await fetch(`${host.url}/metrics`)).text();
    for (const pool of ["primary", "replica1"]) expect(sample(text, "bizdata_db_pool_size", { pool })).toBe(4);
    expect(sample(text, "bizdata_db_replica_up", { pool: "replica1" })).toBe(1);
    expect(text).toMatch(/^bizdata_db_replica_lag_seconds\{pool="replica1"\} [\d.e-]+$/m);
  });

  it("reads from the replica, and a client that wrote reads its write at once", async () => {
    await applyDelay(APPLY_DELAY_MS);
    try {
      const before = await reads();
      const path = await createProduct("writer", "R-1");
      // the writer's read: from the primary, which has it
      expect((await request("writer", path)).status).toBe(200);
      // another client's: from the standby, which has not replayed it yet
      expect((await request("other", path)).status).toBe(404);
      const after = await reads();
      expect([after.primary - before.primary, after.replica - before.replica]).toEqual([1, 1]);
      // once replayed, the other client sees it, from the standby
      expect(await until(async () => (await request("other", path)).status === 200, 3 * APPLY_DELAY_MS)).toBe(true);
      // and the writer's reads go back to the standby once it has replayed a position the primary had after the write
      const replayed = await reads();
      expect(
        await until(async () => {
          expect((await request("writer", path)).status).toBe(200);
          return (await reads()).replica > replayed.replica;
        }, 5000),
      ).toBe(true);
    } finally {
      await applyDelay(0);
    }
  }, 60_000);

  it("skips a replica that lags beyond the bound, and reads from it again once it caught up", async () => {
    await onStandby((sql) => sql`SELECT pg_wal_replay_pause()`);
    try {
      const path = await createProduct("writer", "R-3");
      expect(await until(async () => (await replicaState()) === "lagging", 2 * MAX_LAG_MS)).toBe(true);
      // the other client's read, with the standby skipped: from the primary, which has the product
      const before = await reads();
      expect((await request("other", path)).status).toBe(200);
      const after = await reads();
      expect([after.primary - before.primary, after.replica - before.replica]).toEqual([1, 0]);
    } finally {
      await onStandby((sql) => sql`SELECT pg_wal_replay_resume()`);
    }
    expect(await until(async () => (await replicaState()) === "up", 5000)).toBe(true);
    const back = await reads();
    expect((await request("other", "/api/Product?$top=1")).status).toBe(200);
    expect((await reads()).replica - back.replica).toBe(1);
  }, 30_000);

  it("answers 30 clients reading at once while the replica stops, from the primary, and goes back to the replica once it is back", async () => {
    await createProduct("writer", "R-2");
    const path = `/api/Product?$filter=${encodeURIComponent("SKU eq 'R-2'")}`;
    /** one read by `other`: what is wrong with its answer, if anything */
    const read = async () => {
      const res = await request("other", path);
      if (res.status !== 200) return `${res.status} ${await res.text()}`;
      const { value } = (await res.json()) as { value: unknown[] };
      return value.length === 1 ? undefined : `${value.length} products`;
    };
    const wave = async () => (await Promise.all(Array.from({ length: 30 }, read))).filter((w) => w !== undefined);
    // the standby has the product, and reads go there
    expect(await until(async () => (await wave()).length === 0, 10_000)).toBe(true);
    const serving = await reads();
    expect(await wave()).toEqual([]);
    expect((await reads()).replica - serving.replica).toBe(30);

    // 30 clients reading back to back, from before the stop until after it
    let reading = true;
    let answered = 0;
    const failures: string[] = [];
    const clients = Array.from({ length: 30 }, async () => {
      while (reading) {
        const wrong = await read();
        answered++;
        if (wrong !== undefined) failures.push(wrong);
      }
    });
    await sleep(300);
    const stopping = await reads();
    await standby.stop();
    await sleep(500);
    reading = false;
    await Promise.all(clients);
    const stopped = await reads();
    console.log(
      `replica stopped under 30 reading clients: ${answered} reads, ${failures.length} failed; ` +
        `${stopping.replica - serving.replica - 30} answered by the replica before the stop began, ` +
        `${stopped.replica - stopping.replica} after, ${stopped.primary - stopping.primary} by the primary ` +
        `(${stopped.fallbacks - serving.fallbacks} failed by the replica first)`,
    );
    expect(failures).toEqual([]);
    expect(stopping.replica - serving.replica).toBeGreaterThan(30);
    // stopped, it answers none
    expect(await replicaState()).toBe("down");
    expect(await wave()).toEqual([]);
    const after = await reads();
    expect([after.primary - stopped.primary, after.replica - stopped.replica]).toEqual([30, 0]);

    await standby.start();
    expect(await until(async () => (await replicaState()) === "up", 15_000)).toBe(true);
    expect(await wave()).toEqual([]);
    expect((await reads()).replica - after.replica).toBe(30);
  }, 90_000);
});
