/**
 * `pnpm bench:compare <baseline checkout>`: this checkout's host against the host of another
 * checkout of the project — the commit before a change, e.g. `git worktree add ../base <commit>`
 * with its dependencies installed — on the same database and data, with the floor as a third
 * target. The machines the bench runs on are shared: a host measured for ten seconds and its
 * baseline for the next ten see different neighbours, and a before/after from two `pnpm bench`
 * runs says more about the neighbours than about the change. Here the three targets take turns in
 * short slices (COMPARE_SLICE seconds, default 3), round after round (COMPARE_ROUNDS, default 6),
 * in rotating order, so all meet the same noise; each reports the median req/s of its slices and
 * its process's CPU time per request (/proc), which other processes disturb far less than
 * throughput, and for the hosts PostgreSQL's CPU time per request too, where a change to the SQL
 * shows. BENCH_ONLY, BENCH_CONNECTIONS, BENCH_WARMUP and DATABASE_URL as for `pnpm bench`.
 * The baseline runs its own `bench/host-server.ts`, so its migration runs on the same database
 * first: a baseline whose schema this checkout has changed incompatibly cannot be compared so.
 * COMPARE_THIS_ENV and COMPARE_BASELINE_ENV (`NAME=value NAME=value`) set more of one host's
 * environment: two settings of one checkout compare as `pnpm bench:compare .` with, say,
 * COMPARE_BASELINE_ENV=DATABASE_POOLER=session, and a host behind a pooler with its DATABASE_URL
 * (the data is prepared, and the floor served, on the bench's own DATABASE_URL).
 * COMPARE_THIS_NODE and COMPARE_BASELINE_NODE name the Node binary of one host's process (default:
 * the one running the bench), so that one checkout on two runtimes compares as `pnpm bench:compare .`
 * with each set; the floor and the load generator stay on the bench's own Node.
 * BENCH_PROFILE=<folder> writes a CPU profile of each host (`this`, `baseline`) as it stops: where
 * two checkouts' CPU per request differ, the two profiles of one run show which functions differ.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import { resolve } from "node:path";
import { assertAgree, withoutControl } from "./agree.js";
import { measureInTurns, probe, type Target } from "./load.js";
import { benchTenant, prepareDatabase } from "./prepare.js";
import { describeMachine } from "./report.js";
import { scenarios } from "./scenarios.js";
import { type RunningServer, type ServerOptions, startServer } from "./servers.js";
import { loadSettings } from "./settings.js";
import { signIn } from "./sign-in.js";

const baselineDir = process.argv[2];
if (baselineDir === undefined)
  throw new Error(
    "Name the baseline checkout: pnpm bench:compare <folder of another checkout, dependencies installed>.",
  );
const rounds = Number(process.env.COMPARE_ROUNDS ?? 6);
const slice = Number(process.env.COMPARE_SLICE ?? 3);
if (!(Number.isInteger(rounds) && rounds >= 1 && Number.isInteger(slice) && slice >= 1))
  throw new Error(`COMPARE_ROUNDS=${rounds} and COMPARE_SLICE=${slice} must be whole numbers from 1.`);

const settings = loadSettings();
const machine = describeMachine();
const selected = scenarios.filter((s) => settings.only?.includes(s.name) ?? true);
// the smallest scale's data: the comparison is about the code, not about growth
const data = await prepareDatabase(settings.databaseUrl, Math.min(...settings.scales));
const runId = Date.now().toString(36);
let skus = 0;
// `bench-`: the next run's preparation removes what the create scenario added (prepare.ts)
const scenarioData = { ...data, uniqueSku: () => `bench-compare-${runId}-${skus++}` };
const env = { DATABASE_URL: settings.databaseUrl, ACCESS_TOKEN_TTL: String(24 * 3600), BENCH_TENANT: benchTenant.id };
/** `NAME=value NAME=value` as environment variables */
const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(
    (process.env[name] ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf("=");
        if (at < 1) throw new Error(`${name}: "${pair}" is not NAME=value.`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
/** the Node binary a variable names, as a server's options, and its version for the report; the bench's own when unset */
const nodeOf = (name: string): { options: ServerOptions; version: string } => {
  const node = process.env[name];
  if (!node) return { options: {}, version: process.version };
  return { options: { node }, version: execFileSync(node, ["--version"], { encoding: "utf8" }).trim() };
};
const thisNode = nodeOf("COMPARE_THIS_NODE");
const baselineNode = nodeOf("COMPARE_BASELINE_NODE");
// one after the other: both hosts migrate the same database at start. Both run from their sources
// (a baseline commit may not know the packages' compiled form), so only the code differs
const profiled = (name: string) =>
  settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${settings.profileDir}/${name}`] : [];
const current = await startServer(
  "./host-server.ts",
  { ...env, ...envOf("COMPARE_THIS_ENV") },
  { nodeOptions: profiled("this"), ...thisNode.options },
);
const servers: RunningServer[] = [current];
try {
  servers.push(
    await startServer(
      resolve(baselineDir, "bench/host-server.ts"),
      { ...env, ...envOf("COMPARE_BASELINE_ENV") },
      { nodeOptions: profiled("baseline"), ...baselineNode.options },
    ),
  );
  // the floor that pays the host's isolation (floor-server.ts)
  servers.push(await startServer("./floor-server.ts", { ...env, FLOOR: "isolated" }));
  const [, baseline, floor] = servers as [RunningServer, RunningServer, RunningServer];
  const headers = { authorization: `Bearer ${await signIn(current.url, benchTenant)}` };
  const targets: Target[] = [
    { name: "this", url: current.url, headers, pid: current.pid },
    { name: "baseline", url: baseline.url, headers, pid: baseline.pid },
    { name: "floor", url: floor.url, headers, pid: floor.pid },
  ];
  const rows: string[] = [];
  for (const scenario of selected) {
    const answers = await Promise.all(targets.map((t) => probe(t, scenario, scenarioData)));
    // the hosts may differ in control information (a newer one adds @odata.context): compare the data
    assertAgree(scenario, ["baseline", withoutControl(answers[1])], ["this host", withoutControl(answers[0])]);
    const turns = { warmup: settings.warmup, rounds, slice, connections: settings.connections };
    const progress = (round: number, of: number) => console.error(`${scenario.name}: round ${round} of ${of}`);
    const inTurns = await measureInTurns(targets, scenario, scenarioData, turns, 0, progress);
    const measured = new Map(targets.map((t, i) => [t.name, inTurns[i]!]));
    const rps = (name: string) => measured.get(name)!.rps;
    const p50 = (name: string) => measured.get(name)!.p50;
    const cpu = (name: string) => measured.get(name)!.cpuPerRequest;
    const pg = (name: string) => measured.get(name)!.postgresCpuPerRequest;
    const failed = [...measured.values()].reduce((n, m) => n + m.non2xx + m.errors, 0);
    const fmt = (x: number | undefined, digits = 0) => (x === undefined ? "–" : x.toFixed(digits));
    const ratio = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? "–" : (a / b).toFixed(2);
    rows.push(
      `| ${scenario.name} | ${fmt(rps("this"))} | ${fmt(rps("baseline"))} | ${ratio(rps("this"), rps("baseline"))} | ${fmt(p50("this"))} / ${fmt(p50("baseline"))} | ${fmt(cpu("this"))} | ${fmt(cpu("baseline"))} | ${ratio(cpu("this"), cpu("baseline"))} | ${fmt(pg("this"))} | ${fmt(pg("baseline"))} | ${ratio(pg("this"), pg("baseline"))} | ${fmt(cpu("floor"))} | ${ratio(rps("this"), rps("floor"))} | ${ratio(rps("baseline"), rps("floor"))} | ${failed} |`,
    );
  }
  console.log(
    [
      `this host${process.env.COMPARE_THIS_ENV ? ` (${process.env.COMPARE_THIS_ENV})` : ""} on Node ${thisNode.version} against ${baselineDir}${process.env.COMPARE_BASELINE_ENV ? ` (${process.env.COMPARE_BASELINE_ENV})` : ""} on Node ${baselineNode.version}, ${rounds} rounds of ${slice} s slices per target, ${settings.connections} connections; ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, load before ${machine.loadAverageBefore.join(" ")}, after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
      "",
      "| scenario | this req/s | baseline req/s | this/baseline | p50 ms this / baseline | this CPU µs/req | baseline CPU µs/req | CPU this/baseline | this PostgreSQL CPU µs/req | baseline PostgreSQL CPU µs/req | PostgreSQL this/baseline | floor CPU µs/req | this/floor | baseline/floor | non-2xx + errors |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n"),
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
