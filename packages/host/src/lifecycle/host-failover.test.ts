/**
 * Issue 37's failover trial as a test: a `bizdata serve` process on a throwaway primary and its
 * synchronous standby (packages/test-kit/src/postgres-cluster.ts), through a multi-host
 * DATABASE_URL with `target_session_attrs=read-write`, under a write load, while the primary dies
 * and the standby is promoted; and while the primary turns read-only (as a demoted one does) and
 * the standby is promoted. The host must find the new primary by itself, answering 503 with
 * Retry-After meanwhile, and lose no write it acknowledged.
 */

import postgres from "@bizdata/postgres";
import { type HostProcess, runCli, startHostProcess } from "@bizdata/test-kit/host-process";
import {
  type Cluster,
  missingReplicationBinaries,
  startCluster,
  startStandby,
} from "@bizdata/test-kit/postgres-cluster";
import { eventually, type Outcome, signInOver, sleep, startWriteLoad } from "@bizdata/test-kit/write-load";
import { afterEach, describe, expect, it } from "vitest";

const missing = await missingReplicationBinaries();
if (missing) console.warn(`skipping the host failover tests: ${missing}`);

const TENANT = "failover";
const PASSWORD = "correct horse battery staple";
const STANDBY = "standby1";
/** how soon after the promotion writes must succeed again */
const RECOVERY_BOUND_MS = 10_000;

const answered2xx = (o: Outcome) => o.status !== undefined && o.status >= 200 && o.status < 300;
/** what a request may get while there is no primary: 2xx, or 503 with Retry-After */
const allowed = (o: Outcome) => answered2xx(o) || (o.status === 503 && Boolean(o.retryAfter));

/** runs `statement` on `url` with a connection of its own */
async function onServer<T extends object>(url: string, statement: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await statement(sql);
  } finally {
    await sql.end();
  }
}

/**
 * A primary and a standby whose confirmation every commit waits for
 * (`synchronous_standby_names`), with the reference host's schema, a tenant and a user, and a
 * host serving over the multi-host URL of both.
 */
async function startPair() {
  const primary = await startCluster();
  const standby = await startStandby(primary, STANDBY);
  await onServer(primary.url, async (sql) => {
    await sql.unsafe(`ALTER SYSTEM SET synchronous_standby_names = '${STANDBY}'`);
    await sql`SELECT pg_reload_conf()`;
    const synchronous = async () =>
      (await sql`SELECT 1 FROM pg_stat_replication WHERE application_name = ${STANDBY} AND sync_state = 'sync'`)
        .length === 1;
    for (let i = 0; i < 100 && !(await synchronous()); i++) await sleep(50);
    if (!(await synchronous())) throw new Error("the standby did not become synchronous");
    return [];
  });
  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`;
  const env = { DATABASE_URL: url };
  await runCli(["migrate"], env);
  await runCli(["tenant", "create", TENANT], env);
  await runCli(["user", "create", TENANT, "writer", "--password", PASSWORD, "--role", "admin"], env);
  // a request waits at most for a place in the pool and then for a connection to the primary; a
  // tenant share would answer its queue 429 TenantBusy once the waits add up past its own wait
  const host = await startHostProcess({
    ...env,
    DATABASE_POOL_SIZE: "4",
    DATABASE_TENANT_SHARE: "0",
    DATABASE_POOL_TIMEOUT_MS: "4000",
    DATABASE_CONNECT_TIMEOUT_MS: "4000",
  });
  const token = await signInOver(host.url, TENANT, "writer", PASSWORD);
  return { primary, standby, host, token };
}

/** the SKUs stored in the tenant's products on `server`, read past the host */
const storedSkus = async (server: Cluster) =>
  new Set(
    (
      await onServer(server.url, (sql) => sql<{ sku: string }[]>`SELECT sku FROM product WHERE tenant_id = ${TENANT}`)
    ).map((r) => r.sku),
  );

describe.skipIf(missing !== undefined)("a host on a primary and a synchronous standby", () => {
  let clusters: Cluster[] = [];
  let host: HostProcess | undefined;

  afterEach(async () => {
    if (host?.child.exitCode === null) host.child.kill("SIGKILL");
    await Promise.all(clusters.map((c) => c.destroy()));
    clusters = [];
  });

  /**
   * Runs a write load of 12 workers, `fail(primary, standby)` once it is served, `afterwards` once
   * writes succeed again, and the load for 2 s more; checks what every failover must hold, and
   * reports the ms from `fail`'s end (the promotion) to the first write acknowledged after it.
   */
  async function underLoad(
    label: string,
    fail: (primary: Cluster, standby: Cluster) => Promise<void>,
    afterwards?: (primary: Cluster, standby: Cluster) => Promise<void>,
  ) {
    const pair = await startPair();
    clusters = [pair.primary, pair.standby];
    host = pair.host;
    const load = startWriteLoad(pair.host.url, pair.token, { label, workers: 12 });
    let recovery = Number.POSITIVE_INFINITY;
    try {
      expect(await eventually(() => load.acknowledged().length >= 50, 15_000)).toBe(true);
      await fail(pair.primary, pair.standby);
      const promoted = Date.now();
      const served = () => load.outcomes.find((o) => answered2xx(o) && o.started >= promoted);
      await eventually(() => served() !== undefined, RECOVERY_BOUND_MS + 2000);
      recovery = (served()?.ended ?? Number.POSITIVE_INFINITY) - promoted;
      await afterwards?.(pair.primary, pair.standby);
      await sleep(2000);
    } finally {
      await load.stop();
    }
    const outcomes = load.outcomes;
    console.info(
      `${label}: ${outcomes.length} requests, ${load.acknowledged().length} acknowledged, ` +
        `${outcomes.filter((o) => o.status === 503).length} answered 503; ` +
        `writes served again ${recovery} ms after the promotion; ` +
        `slowest answer ${Math.max(...outcomes.map((o) => o.ended - o.started))} ms`,
    );
    expect(pair.host.child.exitCode).toBe(null);
    expect(pair.host.output().includes("outside any request")).toBe(false);
    // the failover was seen: a test in which every request succeeded would prove nothing
    expect(outcomes.some((o) => o.status === 503)).toBe(true);
    expect(outcomes.filter((o) => o.ended - o.started > 10_000 || o.error !== undefined)).toEqual([]);
    expect(outcomes.filter((o) => !allowed(o))).toEqual([]);
    expect(recovery).toBeLessThan(RECOVERY_BOUND_MS);
    const stored = await storedSkus(pair.standby);
    expect(load.acknowledged().filter((sku) => !stored.has(sku))).toEqual([]);
    // and the host reads from the new primary: every acknowledged write, through the API
    const res = await fetch(`${pair.host.url}/api/Product/$count`, {
      headers: { authorization: `Bearer ${pair.token}` },
    });
    expect(Number(await res.text())).toBe(stored.size);
  }

  it("finds the promoted standby when the primary dies: 2xx or 503 within 10 s, no acknowledged write lost", async () => {
    await underLoad("crash", async (primary, standby) => {
      await primary.stopImmediately();
      // the seconds a failover tool takes to see the primary gone: there is no primary meanwhile
      await sleep(6000);
      await standby.promote();
    });
  }, 90_000);

  it("leaves a primary that turned read-only (25006) for the promoted standby", async () => {
    await underLoad(
      "demotion",
      async (primary, standby) => {
        // as a primary being demoted: its sessions stay connected, and every write fails with 25006
        await onServer(primary.url, async (sql) => {
          await sql`ALTER SYSTEM SET default_transaction_read_only = on`;
          return sql`SELECT pg_reload_conf()`;
        });
        await sleep(1000);
        await standby.promote();
      },
      // writes were served again while the old primary was still up, read-only but not in
      // recovery, which `target_session_attrs=primary` still takes (target-session.ts). Then the
      // failover tool ends the demotion: the old primary follows the new one
      async (primary, standby) => {
        await primary.followAsStandby(standby);
        const [row] = await onServer(primary.url, (sql) => sql`SELECT pg_is_in_recovery() AS standby`);
        expect(row?.standby).toBe(true);
      },
    );
  }, 90_000);
});
