/**
 * The run's results: Markdown tables on stdout (pasteable into an issue), one for the parsers and
 * one for HTTP, one for the import, one for workflows and one for the soak, and the same numbers with the machine and settings as JSON in
 * bench/results/latest.json (ignored by git: results belong to a machine and a moment, not to the
 * source).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import type { ImportResult } from "./import.js";
import type { Measurement } from "./load.js";
import type { ParserResult } from "./parser.js";
import type { BenchSettings } from "./settings.js";
import type { SoakResult } from "./soak.js";
import type { WorkflowResult } from "./workflow.js";

export interface ScenarioResult {
  readonly scenario: string;
  readonly host: Measurement;
  readonly floor: Measurement;
}

export type Machine = ReturnType<typeof describeMachine>;

/** call before the run: the load average then shows other work sharing the cores, not the bench's own */
export const describeMachine = () => ({
  cores: os.availableParallelism(),
  cpu: os.cpus()[0]?.model ?? "unknown",
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadAverageBefore: os.loadavg().map((l) => Number(l.toFixed(2))),
});

const ratio = (r: ScenarioResult) => r.host.rps / r.floor.rps;

const failures = (m: Measurement) =>
  [
    ...Object.entries(m.statuses).map(([status, n]) => `${n}×${status}`),
    ...(m.errors ? [`${m.errors}×error`] : []),
  ].join(" ") || "0";

const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
const markdown = (head: readonly string[], rows: readonly (readonly string[])[]) => [
  line(head),
  line(head.map(() => "---")),
  ...rows.map(line),
];
const machineLine = (m: Machine) =>
  `${new Date().toISOString()} · ${m.cores} cores (${m.cpu}) · Node ${m.node} · load before ${m.loadAverageBefore.join(" ")}`;

/** ops/s with thousands separated, so columns of very different sizes read at a glance */
const ops = (n: number) => Math.round(n).toLocaleString("en-US");

export function parserTable(results: readonly ParserResult[], m: Machine, settings: BenchSettings): string {
  const head = [
    "query",
    "ours: parse ops/s",
    "odata-v4-parser ops/s",
    "parse ours/theirs",
    "ours: parse+bind+compile ops/s",
    "ours: cached plan ops/s",
  ];
  const rows = results.map((r) => [
    r.name,
    ops(r.parse),
    r.theirs === null ? "unsupported" : ops(r.theirs),
    r.theirs === null ? "–" : (r.parse / r.theirs).toFixed(2),
    ops(r.plan),
    ops(r.cached),
  ]);
  return [
    `${machineLine(m)} · ${settings.parserSeconds} s per query string and parser after a warm-up; each call starts from the decoded query string`,
    "",
    ...markdown(head, rows),
    "",
    ...results.map(
      (r) => `- ${r.name}: \`${r.path}?${r.query}\`${r.theirsError ? ` (odata-v4-parser: ${r.theirsError})` : ""}`,
    ),
  ].join("\n");
}

export function table(results: readonly ScenarioResult[], m: Machine, settings: BenchSettings): string {
  const head = [
    "scenario",
    "host req/s",
    "host p50 ms",
    "host p99 ms",
    "floor req/s",
    "floor p50 ms",
    "floor p99 ms",
    "host/floor",
    "failed (host / floor)",
  ];
  const rows = results.map((r) => [
    r.scenario,
    r.host.rps.toFixed(0),
    String(r.host.p50),
    String(r.host.p99),
    r.floor.rps.toFixed(0),
    String(r.floor.p50),
    String(r.floor.p99),
    ratio(r).toFixed(2),
    `${failures(r.host)} / ${failures(r.floor)}`,
  ]);
  return [
    `${machineLine(m)} · ${settings.connections} connections, ${settings.duration} s per run after ${settings.warmup} s warm-up`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export function importTables(r: ImportResult, m: Machine): string {
  const head = ["import", "requests", "seconds", "orders/s", "orders+lines/s", "p50 ms", "p99 ms"];
  const rows = (
    [
      [`$batch (${r.batchSize} creates, one changeset)`, r.batch],
      ["single POST /api/SalesOrder", r.single],
    ] as const
  ).map(([name, run]) => [
    name,
    String(run.requests),
    run.seconds.toFixed(1),
    ops(run.ordersPerSecond),
    ops(run.recordsPerSecond),
    run.p50.toFixed(1),
    run.p99.toFixed(1),
  ]);
  const statementHead = [
    "statements (in-process app)",
    "references (distinct)",
    "statements",
    "natural-key lookups",
    "INSERT",
    "other SELECT",
    "other",
    "per order",
  ];
  const statementRows = r.statements.map((s) => [
    s.label,
    `${s.references.total} (${s.references.distinct})`,
    String(s.statements),
    String(s.lookups),
    String(s.inserts),
    String(s.selects),
    String(s.other),
    (s.statements / s.orders).toFixed(2),
  ]);
  return [
    `${machineLine(m)} · import of ${r.orders} sales orders × ${r.linesPerOrder} lines each way into a tenant without orders, ${r.connections} requests in flight, natural-key references, business logic on every write`,
    "",
    ...markdown(head, rows),
    "",
    `$batch/single: ${r.ratio.toFixed(2)} (orders/s)`,
    "",
    ...markdown(statementHead, statementRows),
    "",
    "Statements leave out BEGIN/COMMIT and each transaction's role/tenant set-up; a natural-key lookup is a statement containing `::text = ANY(`.",
  ].join("\n");
}

export function workflowTable(r: WorkflowResult, m: Machine): string {
  const ms = (n: number) => n.toFixed(1);
  const head = [
    "staged PATCH /api/Product(…)?$select=Cost",
    "steps",
    "rows staged before",
    "p50 ms",
    "p99 ms",
    "mean ms",
  ];
  const rows = [
    ["early window (≈ step 10)", r.early],
    [`late window (≈ step ${r.steps.toLocaleString("en-US")})`, r.late],
  ].map(([name, w]) => {
    const win = w as WorkflowResult["early"];
    return [
      name as string,
      `${win.from}–${win.to}`,
      `${win.from - 1}–${win.to - 1}`,
      ms(win.p50),
      ms(win.p99),
      ms(win.mean),
    ];
  });
  rows.push(["late/early", "", "", r.ratio.p50.toFixed(2), r.ratio.p99.toFixed(2), r.ratio.mean.toFixed(2)]);
  const commitHead = ["POST /api/workflow/commit", "changes", "ms", "changes/s", "ms per change"];
  const commitRows = [r.commit, ...r.commits].map((c) => [
    `${c.changes.toLocaleString("en-US")} Cost changes staged ${c.staged === "http" ? "one PATCH a step" : "in bulk"}`,
    String(c.changes),
    ms(c.ms),
    ops(c.changesPerSecond),
    c.msPerChange.toFixed(3),
  ]);
  const sizes = r.commits.map((c) => c.changes.toLocaleString("en-US"));
  return [
    `${machineLine(m)} · one workflow of ${r.steps} staged PATCHes of distinct products (sequential, ${ms(r.patchSeconds)} s in all), after a committed warm-up workflow of 200, then its commit; then workflows of ${sizes.join(" and ")} changes staged in bulk, each committed (after an unmeasured one of 1,000)`,
    "",
    ...markdown(head, rows),
    "",
    ...markdown(commitHead, commitRows),
    "",
    ...(r.commits.length < 2
      ? []
      : [
          `commit ms per change, ${sizes.at(-1)} over ${sizes[0]} changes: ${r.perChangeRatio.toFixed(2)} (1 is flat; below 1 the fixed cost of a commit shows in the small one)`,
          "",
        ]),
    `p50 per 100 steps: ${r.curve.map((w) => ms(w.p50)).join(" ")} ms. p99 of a window of ${r.early.to - r.early.from + 1} requests is its largest.`,
  ].join("\n");
}

export function soakTable(r: SoakResult, m: Machine): string {
  const head = ["GET /api/Product(<guid>)?$select=SKU,Cost", "req/s", "p50 ms", "p99 ms", "host CPU µs/req", "failed"];
  const rows = r.windows.map((w) => [
    `${w.from.toLocaleString("en-US")}–${w.to.toLocaleString("en-US")}`,
    ops(w.rps),
    String(w.p50),
    String(w.p99),
    w.hostCpuMicros?.toFixed(0) ?? "",
    String(w.failed),
  ]);
  rows.push(["last/first", r.ratio.rps.toFixed(2), "", r.ratio.p99.toFixed(2), r.ratio.hostCpu?.toFixed(2) ?? "", ""]);
  return [
    `${machineLine(m)} · soak: ${r.requests.toLocaleString("en-US")} point reads against one host process, ${r.connections} connections, after a warm-up of ${r.warmupRequests.toLocaleString("en-US")}`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export async function writeJson(
  results: readonly ScenarioResult[],
  parser: readonly ParserResult[],
  imported: ImportResult | undefined,
  workflow: WorkflowResult | undefined,
  soak: SoakResult | undefined,
  machine: Machine,
  settings: BenchSettings,
): Promise<string> {
  const dir = new URL("./results/", import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL("latest.json", dir);
  // the URL may carry a password
  const { databaseUrl: _, ...shown } = settings;
  const json = {
    date: new Date().toISOString(),
    machine,
    settings: shown,
    parser: parser.map((r) => ({ ...r, ratio: r.theirs === null ? null : r.parse / r.theirs })),
    results: results.map((r) => ({ ...r, ratio: ratio(r) })),
    import: imported ?? null,
    workflow: workflow ?? null,
    soak: soak ?? null,
    loadAverageAfter: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
  return file.pathname;
}
