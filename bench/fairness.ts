/**
 * The fairness part of `pnpm bench` (issue 35): how long another tenant's point read takes while
 * one tenant runs heavy `$batch`es, against the same read on an idle host. The heavy tenant is the
 * bench tenant: BENCH_FAIRNESS_HEAVY connections (default 8) each send, one after another, a
 * `$batch` of 64 reads of `SalesOrder?$top=1000&$expand=Details` (the batch: about 28 MB
 * an answer at scale 1), reading every answer whole. The other tenant (`bench-other`, 300
 * products of its own) reads products by key (read-one's requests) over BENCH_FAIRNESS_READERS
 * connections (default 2), one request after another each, for BENCH_DURATION seconds: on the
 * idle host, then under the heavy load; then the batches under way are waited for, so that the
 * next measurement meets an idle host. Latencies are timed here to the microsecond (autocannon
 * rounds them to whole milliseconds, and an idle point read takes less than one).
 *
 * Measured twice: on the run's host, with its tenant share (DATABASE_TENANT_SHARE, default half
 * the pool), and on a host started beside it with DATABASE_TENANT_SHARE=1 (one tenant may take
 * the whole pool), so the report shows what the share changes under the same neighbours. It runs
 * only when BENCH_ONLY names it.
 */
import { openDatabase } from "@bizdata/core";
import { createTenant, setUser } from "@bizdata/host";
import { benchTenant } from "./prepare.js";
import { readOneUrl } from "./scenarios.js";
import { BUILT_PACKAGES, startServer } from "./servers.js";
import { type BenchSettings, wholeSetting } from "./settings.js";
import { signIn } from "./sign-in.js";

/** the name BENCH_ONLY knows this part by */
export const FAIRNESS_PART = "fairness";

export const otherTenant = { id: "bench-other", username: "bench", password: "bench" } as const;

/** the products the other tenant reads by key */
const OTHER_PRODUCTS = 300;

/** reads in the heavy batch, and what each asks for */
const HEAVY_PARTS = 64;
const HEAVY_READ = "SalesOrder?$top=1000&$expand=Details";

export interface Reads {
  readonly requests: number;
  readonly rps: number;
  /** ms */
  readonly p50: number;
  readonly p99: number;
  /** not answered 200 */
  readonly failed: number;
}

export interface HeavyLoad {
  /** batches answered, by status */
  readonly statuses: Readonly<Record<string, number>>;
  /** mean bytes and ms of a batch answered 200 */
  readonly bytes: number;
  readonly ms: number;
}

export interface FairnessRun {
  /** the tenant share the host served with (DATABASE_TENANT_SHARE) */
  readonly share: string;
  readonly idle: Reads;
  readonly loaded: Reads;
  readonly heavy: HeavyLoad;
  /** loaded over idle */
  readonly ratio: { readonly p50: number; readonly p99: number };
}

export interface FairnessResult {
  readonly readers: number;
  readonly heavyConnections: number;
  readonly runs: readonly FairnessRun[];
}

/** the other tenant, its user and its products (made once, kept for later runs) */
async function prepareOther(databaseUrl: string): Promise<void> {
  const db = await openDatabase({ url: databaseUrl, max: 1 });
  try {
    await createTenant(db, otherTenant.id, "Fairness");
    await setUser(db, otherTenant.id, otherTenant.username, otherTenant.password, ["admin"]);
  } finally {
    await db.close();
  }
}

/** the other tenant's token from `url` and its products' Guids, creating the products the first time */
async function otherProducts(url: string): Promise<{ token: string; guids: string[] }> {
  const token = await signIn(url, otherTenant);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const list = async () => {
    const response = await fetch(`${url}/api/Product?$select=Guid&$top=${OTHER_PRODUCTS}`, { headers });
    if (!response.ok) throw new Error(`the other tenant's products: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { value: { Guid: string }[] }).value.map((p) => p.Guid);
  };
  const known = await list();
  for (let i = known.length; i < OTHER_PRODUCTS; i++) {
    const created = await fetch(`${url}/api/Product`, {
      method: "POST",
      headers,
      body: JSON.stringify({ SKU: `OTHER-${i}`, SalesDescription: `Product ${i}`, Cost: 12.5 }),
    });
    if (created.status !== 201) throw new Error(`an other tenant's product: ${created.status} ${await created.text()}`);
  }
  return { token, guids: known.length === OTHER_PRODUCTS ? known : await list() };
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** `connections` loops reading the products by key, one request after another, for `seconds` */
async function timedReads(
  url: string,
  token: string,
  guids: readonly string[],
  connections: number,
  seconds: number,
): Promise<Reads> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const guid = guids[next++ % guids.length]!;
      const sent = performance.now();
      const response = await fetch(url + readOneUrl(guid), { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
      if (response.status !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    rps: sorted.length / ((performance.now() - started) / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    failed,
  };
}

/**
 * `connections` loops sending the heavy batch one after another until `stopped()`: each finishes
 * the batch it sent, since the host would go on serving one whose client left, and the next
 * measurement would meet it
 */
async function heavyLoad(
  url: string,
  token: string,
  orders: number,
  connections: number,
  stopped: () => boolean,
): Promise<HeavyLoad> {
  const statuses: Record<string, number> = {};
  let answered = 0;
  let bytes = 0;
  let ms = 0;
  const pages = Math.max(1, Math.ceil(orders / 1000));
  const body = JSON.stringify({
    requests: Array.from({ length: HEAVY_PARTS }, (_, i) => ({
      id: String(i),
      method: "GET",
      url: `${HEAVY_READ}&$skip=${(i % pages) * 1000}`,
    })),
  });
  const loop = async () => {
    while (!stopped()) {
      const started = performance.now();
      const response = await fetch(`${url}/api/$batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      const text = await response.text();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status !== 200) continue;
      answered++;
      bytes += Buffer.byteLength(text);
      ms += performance.now() - started;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { statuses, bytes: answered && bytes / answered, ms: answered && ms / answered };
}

/** the other tenant's reads on `url` idle, then under the heavy batches */
async function measure(
  url: string,
  share: string,
  orders: number,
  readers: number,
  heavyConnections: number,
  settings: BenchSettings,
): Promise<FairnessRun> {
  const { token, guids } = await otherProducts(url);
  const heavyToken = await signIn(url, benchTenant);
  // warm: JIT, prepared statements, the pool's connections
  await timedReads(url, token, guids, readers, settings.warmup);
  console.error(`fairness (tenant share ${share}): the other tenant's reads on the idle host`);
  const idle = await timedReads(url, token, guids, readers, settings.duration);
  let stopped = false;
  const heavy = heavyLoad(url, heavyToken, orders, heavyConnections, () => stopped);
  // the heavy batches under way before the reads are measured
  await new Promise((resolve) => setTimeout(resolve, settings.warmup * 1000));
  console.error(
    `fairness (tenant share ${share}): the same reads while ${heavyConnections} connections send the heavy batch`,
  );
  const loaded = await timedReads(url, token, guids, readers, settings.duration);
  stopped = true;
  console.error(`fairness (tenant share ${share}): waiting for the heavy batches under way`);
  return {
    share,
    idle,
    loaded,
    heavy: await heavy,
    ratio: { p50: loaded.p50 / idle.p50, p99: loaded.p99 / idle.p99 },
  };
}

/**
 * The part: on the run's host (`url`, its tenant share as configured), then on one started with
 * `env` and DATABASE_TENANT_SHARE=1.
 */
export async function runFairness(
  url: string,
  env: NodeJS.ProcessEnv,
  data: { readonly databaseUrl: string; readonly orders: number },
  settings: BenchSettings,
): Promise<FairnessResult> {
  const readers = wholeSetting("BENCH_FAIRNESS_READERS", 2);
  const heavyConnections = wholeSetting("BENCH_FAIRNESS_HEAVY", 8);
  await prepareOther(data.databaseUrl);
  const configured = process.env.DATABASE_TENANT_SHARE || "0.5";
  const runs = [await measure(url, configured, data.orders, readers, heavyConnections, settings)];
  const whole = await startServer(
    "./host-server.ts",
    { ...env, DATABASE_TENANT_SHARE: "1" },
    { nodeOptions: BUILT_PACKAGES },
  );
  try {
    runs.push(await measure(whole.url, "1", data.orders, readers, heavyConnections, settings));
  } finally {
    await whole.stop();
  }
  return { readers, heavyConnections, runs };
}
