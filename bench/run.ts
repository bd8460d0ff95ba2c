/**
 * `pnpm bench`: first the parsers' throughput in this process (parser.ts), then, at each scale of
 * sample data (BENCH_SCALES=1,10; each in a database of its own, prepare.ts), the host (compiled
 * first, and run as it ships: servers.ts, BUILT_PACKAGES) against
 * hand-written floors on the same PostgreSQL (BENCH_FLOORS: the floor with the host's tenant
 * isolation and the one without a transaction, floor-server.ts), scenario by scenario
 * (scenarios.ts), then the import of sales orders through `$batch` and through single POSTs
 * (import.ts), then one long workflow of staged PATCHes and its commit (workflow.ts), with tables
 * on stdout, one more that sets every scale against the smallest, and bench/results/latest.json.
 * Settings come from the environment (settings.ts): BENCH_ONLY picks
 * scenarios (`import` names the import part, `workflow` the workflow part), BENCH_PARSER=0 skips
 * the parser part and BENCH_PARSER=only runs nothing else, BENCH_IMPORT_ORDERS sizes the import
 * and BENCH_WORKFLOW_STEPS the workflow (0 skips either), BENCH_WORKFLOW_COMMITS the workflow's
 * bulk-staged commits (default 100,10000); BENCH_ONLY=soak runs the soak part
 * (soak.ts: BENCH_SOAK_REQUESTS point reads against one host, throughput and p99 per 100,000),
 * which runs only when named; BENCH_ONLY=fairness the fairness part (fairness.ts: another
 * tenant's point reads while one tenant sends heavy batches, against an idle host), also only when
 * named; BENCH_ONLY=outbox the outbox part (outbox.ts: the create scenario and the `$batch` import on
 * the host with its change log and on one with CHANGE_LOG=off), also only when named; BENCH_HOST=installed measures the host as npm installs the packed packages
 * (installed-host.ts) instead of the workspace's; BENCH_PROFILE=<folder> writes CPU profiles of
 * the host and the floor processes into its subfolders host/ and floor-<kind>/. It fails
 * before measuring a scenario when the host and a floor disagree on its answer, exits non-zero
 * when a scenario mostly failed, and fails when an import request is not answered 2xx or the
 * tenant does not hold what was imported, or when a workflow step or commit is not answered as
 * expected or the products do not hold the committed costs.
 */
import { assertAgree, withoutControl } from "./agree.js";
import { FAIRNESS_PART, runFairness } from "./fairness.js";
import { IMPORT_PART, importTenant, prepareImport, runImport } from "./import.js";
import { type InstalledHost, installHost } from "./installed-host.js";
import { benchTurns, measureInTurns, mostlyFailed, probe, type Target, warmUp } from "./load.js";
import { OUTBOX_PART, runOutbox } from "./outbox.js";
import { type ParserResult, runParserBench } from "./parser.js";
import { benchTenant, prepareDatabase, scaleDatabase } from "./prepare.js";
import {
  describeMachine,
  fairnessTable,
  growthTable,
  importTables,
  outboxTable,
  parserTable,
  type ScaleRun,
  type ScenarioResult,
  scaleLine,
  soakTable,
  table,
  workflowTable,
  writeJson,
} from "./report.js";
import { scenarios } from "./scenarios.js";
import { BUILT_PACKAGES, buildPackages, type RunningServer, startServer } from "./servers.js";
import { type Floor, loadSettings } from "./settings.js";
import { signIn } from "./sign-in.js";
import { runSoak, SOAK_PART, soakFailed } from "./soak.js";
import { runWorkflowBench, WORKFLOW_PART } from "./workflow.js";

const settings = loadSettings();
const unknown =
  settings.only?.filter(
    (name) =>
      name !== IMPORT_PART &&
      name !== WORKFLOW_PART &&
      name !== SOAK_PART &&
      name !== FAIRNESS_PART &&
      name !== OUTBOX_PART &&
      !scenarios.some((s) => s.name === name),
  ) ?? [];
if (unknown.length > 0)
  throw new Error(
    `BENCH_ONLY names no scenario ${unknown.join(", ")}; the scenarios are ${scenarios.map((s) => s.name).join(", ")}, ${IMPORT_PART} is the import part, ${WORKFLOW_PART} the workflow part, ${SOAK_PART} the soak part, ${FAIRNESS_PART} the fairness part and ${OUTBOX_PART} the outbox part.`,
  );
const selected = settings.parser === "only" ? [] : scenarios.filter((s) => settings.only?.includes(s.name) ?? true);
const importing =
  settings.parser !== "only" && settings.importOrders > 0 && (settings.only?.includes(IMPORT_PART) ?? true);
const workflowing =
  settings.parser !== "only" && settings.workflowSteps > 0 && (settings.only?.includes(WORKFLOW_PART) ?? true);
// minutes long: only when named
const soaking = settings.parser !== "only" && (settings.only?.includes(SOAK_PART) ?? false);
const fair = settings.parser !== "only" && (settings.only?.includes(FAIRNESS_PART) ?? false);
const outboxing = settings.parser !== "only" && (settings.only?.includes(OUTBOX_PART) ?? false);
const machine = describeMachine();

const parser: ParserResult[] = settings.parser === "off" ? [] : runParserBench(settings.parserSeconds);
if (parser.length > 0) console.log(`${parserTable(parser, machine, settings)}\n`);

async function runScale(scale: number, installed: InstalledHost | undefined): Promise<ScaleRun> {
  // the workflow part stages changes to the bench tenant's products
  const data =
    selected.length > 0 || workflowing || soaking || fair || outboxing
      ? await prepareDatabase(settings.databaseUrl, scale)
      : { databaseUrl: await scaleDatabase(settings.databaseUrl, scale), guids: [], orders: 0, lines: 0 };
  if (importing || outboxing) await prepareImport(data.databaseUrl);
  const runId = Date.now().toString(36);
  let skus = 0;
  const scenarioData = { ...data, uniqueSku: () => `bench-${runId}-${skus++}` };
  const env = {
    DATABASE_URL: data.databaseUrl,
    // one token serves the whole run, however long BENCH_DURATION makes it
    ACCESS_TOKEN_TTL: String(24 * 3600),
    BENCH_TENANT: benchTenant.id,
  };
  const profile = (name: string) =>
    settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${settings.profileDir}/${name}`] : [];
  const host = installed
    ? await installed.start(env, profile("host"))
    : await startServer("./host-server.ts", env, { nodeOptions: [...BUILT_PACKAGES, ...profile("host")] });
  // the import and the workflow part need no floor: they measure the host alone
  const floors: { name: Floor; server: RunningServer }[] = [];
  try {
    if (selected.length > 0)
      for (const name of settings.floors)
        floors.push({
          name,
          server: await startServer(
            "./floor-server.ts",
            { ...env, FLOOR: name },
            { nodeOptions: profile(`floor-${name}`) },
          ),
        });
  } catch (error) {
    await Promise.all([host.stop(), ...floors.map((f) => f.server.stop())]);
    throw error;
  }
  try {
    const results: ScenarioResult[] = [];
    if (floors.length > 0) {
      // the floors ignore the token, but get the same request bytes to parse
      const headers = { authorization: `Bearer ${await signIn(host.url, benchTenant)}` };
      const targets: Target[] = [
        { name: "host", url: host.url, headers, pid: host.pid },
        ...floors.map((f) => ({ name: f.name, url: f.server.url, headers, pid: f.server.pid })),
      ];
      // every target warm before anything is measured: a server started a moment ago compiles,
      // optimizes and prepares its statements during the first scenarios, and the first target
      // measured paid for that alone (the create scenario changes data, so it only warms itself)
      for (const scenario of selected.filter((s) => s.name !== "create"))
        for (const target of targets) await warmUp(target, scenario, scenarioData, settings);
      for (const [index, scenario] of selected.entries()) {
        const [hostAnswer, ...floorAnswers] = await Promise.all(targets.map((t) => probe(t, scenario, scenarioData)));
        // a floor writes the data only: the host's control information (@odata.context, @odata.etag) is its own work
        floorAnswers.forEach((floorAnswer, i) => {
          assertAgree(scenario, [`${floors[i]!.name} floor`, floorAnswer], ["host", withoutControl(hostAnswer)]);
        });
        // the targets take turns, and each scenario starts with another one
        const turns = benchTurns(settings);
        const [hostMeasured, ...floorsMeasured] = await measureInTurns(
          targets,
          scenario,
          scenarioData,
          turns,
          index,
          (round, rounds) => console.error(`${scenario.name} at ${scale}×: round ${round} of ${rounds}`),
        );
        results.push({
          scenario: scenario.name,
          host: hostMeasured!,
          floors: floorsMeasured.map((m, i) => ({ floor: floors[i]!.name, measured: m })),
        });
      }
    }
    const imported = importing
      ? await runImport(
          host.url,
          host.pid,
          await signIn(host.url, importTenant),
          data.databaseUrl,
          settings.importOrders,
          settings.importConnections,
        )
      : undefined;
    const workflow = workflowing
      ? await runWorkflowBench(
          host.url,
          await signIn(host.url, benchTenant),
          data.databaseUrl,
          settings.workflowSteps,
          settings.workflowCommits,
        )
      : undefined;
    const soak = soaking
      ? await runSoak(host.url, host.pid, await signIn(host.url, benchTenant), scenarioData, settings)
      : undefined;
    const fairness = fair ? await runFairness(host.url, env, data, settings) : undefined;
    const outbox = outboxing ? await runOutbox(host, env, scenarioData, settings) : undefined;
    return { scale, orders: data.orders, lines: data.lines, results, imported, workflow, soak, fairness, outbox };
  } finally {
    await Promise.all([host.stop(), ...floors.map((f) => f.server.stop())]);
  }
}

const runs: ScaleRun[] = [];
if (selected.length > 0 || importing || workflowing || soaking || fair || outboxing) {
  // once for the run: installing packs the packages, which builds them afresh
  const installed = settings.host === "installed" ? await installHost() : undefined;
  // the host runs as it ships: compiled (servers.ts, BUILT_PACKAGES)
  buildPackages();
  try {
    for (const scale of settings.scales) {
      const run = await runScale(scale, installed);
      runs.push(run);
      console.log(`\n${scaleLine(run)}\n`);
      if (run.results.length > 0) console.log(table(run.results, machine, settings));
      if (run.imported !== undefined) console.log(`\n${importTables(run.imported, machine)}`);
      if (run.workflow !== undefined) console.log(`\n${workflowTable(run.workflow, machine)}`);
      if (run.soak !== undefined) console.log(`\n${soakTable(run.soak, machine, settings)}`);
      if (run.fairness !== undefined) console.log(`\n${fairnessTable(run.fairness, machine)}`);
      if (run.outbox !== undefined) console.log(`\n${outboxTable(run.outbox, machine)}`);
    }
  } finally {
    installed?.remove();
  }
}
if (runs.length > 1) console.log(`\n${growthTable(runs)}`);
console.log(`\nwritten to ${await writeJson(runs, parser, machine, settings)}`);
const results = runs.flatMap((run) => run.results.map((r) => ({ ...r, scale: run.scale })));
const failed = results.flatMap((r) =>
  [
    ...(mostlyFailed(r.host) ? ["host"] : []),
    ...r.floors.filter((f) => mostlyFailed(f.measured)).map((f) => `${f.floor} floor`),
  ].map((t) => `${r.scenario} on ${t} at ${r.scale}×`),
);
for (const run of runs) if (run.soak !== undefined && soakFailed(run.soak)) failed.push(`soak at ${run.scale}×`);
if (failed.length > 0) {
  console.error(`\nMOSTLY FAILED (the numbers above measure errors, or no answer): ${failed.join(", ")}`);
  process.exitCode = 1;
}
