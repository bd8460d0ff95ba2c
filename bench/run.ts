/**
 * `pnpm bench`: first the parsers' throughput in this process (parser.ts), then the host against
 * a hand-written floor on the same PostgreSQL, scenario by scenario (scenarios.ts), then the
 * import of sales orders through `$batch` and through single POSTs (import.ts), then one long
 * workflow of staged PATCHes and its commit (workflow.ts), with tables on stdout and
 * bench/results/latest.json. Settings come from the environment (settings.ts): BENCH_ONLY picks
 * scenarios (`import` names the import part, `workflow` the workflow part), BENCH_PARSER=0 skips
 * the parser part and BENCH_PARSER=only runs nothing else, BENCH_IMPORT_ORDERS sizes the import
 * and BENCH_WORKFLOW_STEPS the workflow (0 skips either), BENCH_WORKFLOW_COMMITS the workflow's
 * bulk-staged commits (default 100,10000); BENCH_ONLY=soak runs the soak part
 * (soak.ts: BENCH_SOAK_REQUESTS point reads against one host, throughput and p99 per 100,000),
 * which runs only when named; BENCH_PROFILE=<folder> writes CPU profiles of the host and the
 * floor processes into its subfolders host/ and floor/. It fails
 * before measuring a scenario when the host and the floor disagree on its answer, exits non-zero
 * when a scenario mostly failed, and fails when an import request is not answered 2xx or the
 * tenant does not hold what was imported, or when a workflow step or commit is not answered as
 * expected or the products do not hold the committed costs.
 */
import { assertAgree, withoutControl } from "./agree.js";
import { IMPORT_PART, type ImportResult, importTenant, prepareImport, runImport } from "./import.js";
import { type Measurement, measure, mostlyFailed, probe, type Target } from "./load.js";
import { type ParserResult, runParserBench } from "./parser.js";
import { benchTenant, prepareDatabase } from "./prepare.js";
import {
  describeMachine,
  importTables,
  parserTable,
  type ScenarioResult,
  soakTable,
  table,
  workflowTable,
  writeJson,
} from "./report.js";
import { scenarios } from "./scenarios.js";
import { startServer } from "./servers.js";
import { loadSettings } from "./settings.js";
import { signIn } from "./sign-in.js";
import { runSoak, SOAK_PART, type SoakResult, soakFailed } from "./soak.js";
import { runWorkflowBench, WORKFLOW_PART, type WorkflowResult } from "./workflow.js";

const settings = loadSettings();
const unknown =
  settings.only?.filter(
    (name) =>
      name !== IMPORT_PART && name !== WORKFLOW_PART && name !== SOAK_PART && !scenarios.some((s) => s.name === name),
  ) ?? [];
if (unknown.length > 0)
  throw new Error(
    `BENCH_ONLY names no scenario ${unknown.join(", ")}; the scenarios are ${scenarios.map((s) => s.name).join(", ")}, ${IMPORT_PART} is the import part, ${WORKFLOW_PART} the workflow part and ${SOAK_PART} the soak part.`,
  );
const selected = settings.parser === "only" ? [] : scenarios.filter((s) => settings.only?.includes(s.name) ?? true);
const importing =
  settings.parser !== "only" && settings.importOrders > 0 && (settings.only?.includes(IMPORT_PART) ?? true);
const workflowing =
  settings.parser !== "only" && settings.workflowSteps > 0 && (settings.only?.includes(WORKFLOW_PART) ?? true);
// minutes long: only when named
const soaking = settings.parser !== "only" && (settings.only?.includes(SOAK_PART) ?? false);
const machine = describeMachine();

const parser: ParserResult[] = settings.parser === "off" ? [] : runParserBench(settings.parserSeconds);
if (parser.length > 0) console.log(`${parserTable(parser, machine, settings)}\n`);

async function runHttp(): Promise<{
  results: ScenarioResult[];
  imported: ImportResult | undefined;
  workflow: WorkflowResult | undefined;
  soak: SoakResult | undefined;
}> {
  // the workflow part stages changes to the bench tenant's products
  const data =
    selected.length > 0 || workflowing || soaking
      ? await prepareDatabase(settings.databaseUrl, settings.scale)
      : { guids: [] };
  if (importing) await prepareImport(settings.databaseUrl);
  const runId = Date.now().toString(36);
  let skus = 0;
  const scenarioData = { ...data, uniqueSku: () => `bench-${runId}-${skus++}` };
  const env = {
    DATABASE_URL: settings.databaseUrl,
    // one token serves the whole run, however long BENCH_DURATION makes it
    ACCESS_TOKEN_TTL: String(24 * 3600),
    BENCH_TENANT: benchTenant.id,
  };
  const profile = (name: string) =>
    settings.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${settings.profileDir}/${name}`] : [];
  const host = await startServer("./host-server.ts", env, profile("host"));
  // the import and the workflow part need no floor: they measure the host alone
  const floor =
    selected.length === 0
      ? undefined
      : await startServer("./floor-server.ts", env, profile("floor")).catch(async (error) => {
          await host.stop();
          throw error;
        });
  try {
    const results: ScenarioResult[] = [];
    if (floor !== undefined) {
      // the floor ignores the token, but gets the same request bytes to parse
      const headers = { authorization: `Bearer ${await signIn(host.url, benchTenant)}` };
      const targets: Target[] = [
        { name: "host", url: host.url, headers },
        { name: "floor", url: floor.url, headers },
      ];
      for (const scenario of selected) {
        const [hostAnswer, floorAnswer] = await Promise.all(targets.map((t) => probe(t, scenario, scenarioData)));
        // the floor writes the data only: the host's control information (@odata.context, @odata.etag) is its own work
        assertAgree(scenario, ["floor", floorAnswer], ["host", withoutControl(hostAnswer)]);
        const measured: Measurement[] = [];
        for (const target of targets) {
          console.error(`${scenario.name} on ${target.name}…`);
          measured.push(await measure(target, scenario, scenarioData, settings));
        }
        results.push({ scenario: scenario.name, host: measured[0]!, floor: measured[1]! });
      }
    }
    const imported = importing
      ? await runImport(
          host.url,
          await signIn(host.url, importTenant),
          settings.databaseUrl,
          settings.importOrders,
          settings.importConnections,
        )
      : undefined;
    const workflow = workflowing
      ? await runWorkflowBench(
          host.url,
          await signIn(host.url, benchTenant),
          settings.databaseUrl,
          settings.workflowSteps,
          settings.workflowCommits,
        )
      : undefined;
    const soak = soaking
      ? await runSoak(host.url, host.pid, await signIn(host.url, benchTenant), scenarioData, settings)
      : undefined;
    return { results, imported, workflow, soak };
  } finally {
    await Promise.all([host.stop(), floor?.stop()]);
  }
}

const { results, imported, workflow, soak } =
  selected.length > 0 || importing || workflowing || soaking
    ? await runHttp()
    : { results: [], imported: undefined, workflow: undefined, soak: undefined };
if (results.length > 0) console.log(table(results, machine, settings));
if (imported !== undefined) console.log(`\n${importTables(imported, machine)}`);
if (workflow !== undefined) console.log(`\n${workflowTable(workflow, machine)}`);
if (soak !== undefined) console.log(`\n${soakTable(soak, machine)}`);
console.log(`\nwritten to ${await writeJson(results, parser, imported, workflow, soak, machine, settings)}`);
const failed = results.flatMap((r) =>
  (["host", "floor"] as const).filter((t) => mostlyFailed(r[t])).map((t) => `${r.scenario} on ${t}`),
);
if (soak !== undefined && soakFailed(soak)) failed.push("soak");
if (failed.length > 0) {
  console.error(`\nMOSTLY FAILED (the numbers above measure errors): ${failed.join(", ")}`);
  process.exitCode = 1;
}
