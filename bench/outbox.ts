/**
 * The outbox part of `pnpm bench` (issue 40): what the change log costs writes. The run's host
 * (CHANGE_LOG on, as it ships) and one started beside it with CHANGE_LOG=off, on the same
 * database, take turns at two writes:
 *
 * - create: the `create` scenario (`POST /api/Product`, one record, one change log row), measured
 *   with autocannon in turns as every scenario is (measureInTurns);
 * - `$batch` import: the import part's sales orders, 64 creates with their lines a changeset
 *   (a log row per order and per line), in alternating rounds of the same orders.
 *
 * Reported per write: throughput with the log and without, their ratio, and the host's and
 * PostgreSQL's CPU per write: the goal is a log costing no more than 15% of write throughput. It
 * runs only when BENCH_ONLY names it.
 */
import { openDatabase } from "@bizdata/core";
import {
  batchRequests,
  type Client,
  check,
  combined,
  deleteOrders,
  IMPORT_BATCH_SIZE,
  type ImportRun,
  importOrders,
  importTenant,
  type Measured,
  measuredPool,
  pool,
  roundsOf,
  summarize,
  withPrefix,
} from "./import.js";
import { benchTurns, type Measurement, measureInTurns, type Target, warmUp } from "./load.js";
import { benchTenant } from "./prepare.js";
import type { ScenarioData } from "./scenarios.js";
import { scenarios } from "./scenarios.js";
import { BUILT_PACKAGES, startServer } from "./servers.js";
import type { BenchSettings } from "./settings.js";
import { signIn } from "./sign-in.js";

/** the name BENCH_ONLY knows this part by */
export const OUTBOX_PART = "outbox";

export interface OutboxResult {
  readonly create: { readonly on: Measurement; readonly off: Measurement; readonly ratio: number };
  readonly import: { readonly on: ImportRun; readonly off: ImportRun; readonly ratio: number; readonly orders: number };
}

/** `$batch` imports of `count` orders into each host in alternating rounds */
async function importBoth(
  on: Client & { pid: number | undefined },
  off: Client & { pid: number | undefined },
  databaseUrl: string,
  count: number,
  connections: number,
) {
  const runId = Date.now().toString(36);
  const orders = importOrders(Math.max(count, 2 * IMPORT_BATCH_SIZE));
  const measured = orders.slice(0, count);
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  try {
    const warm = orders.slice(0, 2 * IMPORT_BATCH_SIZE);
    await pool(batchRequests(on, withPrefix(`OWN-${runId}-`, warm)), connections);
    await pool(batchRequests(off, withPrefix(`OWF-${runId}-`, warm)), connections);
    const viaOn = withPrefix(`ON-${runId}-`, measured);
    const viaOff = withPrefix(`OF-${runId}-`, measured);
    const timed = { on: [] as Measured[], off: [] as Measured[] };
    const rounds = roundsOf(measured.length);
    for (const [i, [from, to]] of rounds.entries()) {
      console.error(`outbox: $batch import round ${i + 1} of ${rounds.length}`);
      const ways = [
        async () => timed.on.push(await measuredPool(on.pid, batchRequests(on, viaOn.slice(from, to)), connections)),
        async () =>
          timed.off.push(await measuredPool(off.pid, batchRequests(off, viaOff.slice(from, to)), connections)),
      ];
      for (const way of i % 2 === 0 ? ways : ways.reverse()) await way();
    }
    await check(db, `ON-${runId}-`, viaOn);
    await check(db, `OF-${runId}-`, viaOff);
    return { on: summarize(viaOn, combined(timed.on)), off: summarize(viaOff, combined(timed.off)) };
  } finally {
    await deleteOrders(db);
    await db.close();
  }
}

/**
 * Measures the create scenario and the `$batch` import on the host at `url` (its change log on)
 * and on one started with `env` and CHANGE_LOG=off.
 */
export async function runOutbox(
  host: { readonly url: string; readonly pid: number | undefined },
  env: NodeJS.ProcessEnv,
  data: ScenarioData,
  settings: BenchSettings,
): Promise<OutboxResult> {
  const unlogged = await startServer(
    "./host-server.ts",
    { ...env, CHANGE_LOG: "off" },
    { nodeOptions: BUILT_PACKAGES },
  );
  try {
    const create = scenarios.find((s) => s.name === "create")!;
    const token = await signIn(host.url, benchTenant);
    const headers = { authorization: `Bearer ${token}` };
    const targets: Target[] = [
      { name: "log on", url: host.url, headers, pid: host.pid },
      { name: "log off", url: unlogged.url, headers, pid: unlogged.pid },
    ];
    for (const target of targets) await warmUp(target, create, data, settings);
    const [on, off] = await measureInTurns(targets, create, data, benchTurns(settings), 0, (round, rounds) =>
      console.error(`outbox: create round ${round} of ${rounds}`),
    );
    const importToken = await signIn(host.url, importTenant);
    const imported = await importBoth(
      { url: host.url, token: importToken, pid: host.pid },
      { url: unlogged.url, token: importToken, pid: unlogged.pid },
      env.DATABASE_URL!,
      settings.importOrders,
      settings.importConnections,
    );
    return {
      create: { on: on!, off: off!, ratio: on!.rps / off!.rps },
      import: {
        ...imported,
        ratio: imported.on.ordersPerSecond / imported.off.ordersPerSecond,
        orders: settings.importOrders,
      },
    };
  } finally {
    await unlogged.stop();
  }
}
