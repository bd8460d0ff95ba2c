/**
 * The fairness part of `pnpm bench` (issue 35): how long another tenant's point read takes while
 * one tenant runs heavy `$batch`es, against the same read on an idle host. The heavy tenant is the
 * bench tenant: BENCH_FAIRNESS_HEAVY connections (default 4) each send, one after another, a
 * `$batch` of 64 reads of `SalesOrder?$top=1000&$expand=Details` (the batch: tens of MB
 * an answer), reading every answer whole. The other tenant (`bench-other`, 300 products of its
 * own) reads products by key with the read-one scenario's requests over BENCH_FAIRNESS_READERS
 * connections (default 2) for BENCH_DURATION seconds, first on the idle host, then under the
 * heavy load; the report gives both p50/p99 and their ratio. It runs only when BENCH_ONLY names
 * it. The host serves with its configured tenant share (DATABASE_TENANT_SHARE, …): run it with
 * DATABASE_TENANT_SHARE=1 to see the host without one.
 */
import { openDatabase } from "@bizdata/core";
import { createTenant, setUser } from "@bizdata/host";
import { type Measurement, sample, type Target, warmUp } from "./load.js";
import type { ScenarioData } from "./scenarios.js";
import { scenarios } from "./scenarios.js";
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

export interface HeavyLoad {
  readonly connections: number;
  /** batches answered, by status */
  readonly statuses: Readonly<Record<string, number>>;
  /** mean answer bytes and ms of a batch */
  readonly bytes: number;
  readonly ms: number;
}

export interface FairnessResult {
  readonly readers: number;
  readonly idle: Measurement;
  readonly loaded: Measurement;
  readonly heavy: HeavyLoad;
  /** loaded over idle */
  readonly ratio: { readonly p50: number; readonly p99: number };
}

/** the other tenant, its user and its products (made once, kept for later runs); their Guids */
async function prepareOther(url: string, databaseUrl: string): Promise<{ token: string; guids: string[] }> {
  const db = await openDatabase({ url: databaseUrl, max: 1 });
  try {
    await createTenant(db, otherTenant.id, "Fairness");
    await setUser(db, otherTenant.id, otherTenant.username, otherTenant.password, ["admin"]);
  } finally {
    await db.close();
  }
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

/** `connections` loops that send the heavy batch one after another until `stop` resolves */
async function heavyLoad(url: string, token: string, orders: number, connections: number, stop: Promise<void>) {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const statuses: Record<string, number> = {};
  let batches = 0;
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
    while (!stopped) {
      const started = performance.now();
      const response = await fetch(`${url}/api/$batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      const text = await response.text();
      ms += performance.now() - started;
      bytes += Buffer.byteLength(text);
      batches++;
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { connections, statuses, bytes: batches && bytes / batches, ms: batches && ms / batches };
}

export async function runFairness(
  url: string,
  hostPid: number | undefined,
  heavyToken: string,
  data: ScenarioData,
  settings: BenchSettings,
): Promise<FairnessResult> {
  const readOne = scenarios.find((s) => s.name === "read-one");
  if (readOne === undefined) throw new Error("the fairness part reads with the read-one scenario, which is missing");
  const readers = wholeSetting("BENCH_FAIRNESS_READERS", 2);
  const heavyConnections = wholeSetting("BENCH_FAIRNESS_HEAVY", 4);
  const other = await prepareOther(url, data.databaseUrl);
  const otherData = { ...data, guids: other.guids };
  const target: Target = { name: "host", url, headers: { authorization: `Bearer ${other.token}` }, pid: hostPid };
  await warmUp(target, readOne, otherData, settings);
  console.error("fairness: the other tenant's reads on the idle host");
  const idle = await sample(target, readOne, otherData, settings.duration, readers);
  let stop!: () => void;
  const stopping = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const heavy = heavyLoad(url, heavyToken, data.orders, heavyConnections, stopping);
  // the heavy batches under way before the reads are measured
  await new Promise((resolve) => setTimeout(resolve, settings.warmup * 1000));
  console.error(`fairness: the same reads while ${heavyConnections} connections send the heavy batch`);
  const loaded = await sample(target, readOne, otherData, settings.duration, readers);
  stop();
  const heavyResult = await heavy;
  return {
    readers,
    idle,
    loaded,
    heavy: heavyResult,
    ratio: { p50: loaded.p50 / idle.p50, p99: loaded.p99 / idle.p99 },
  };
}
