/**
 * The run's results: Markdown tables on stdout (pasteable into an issue), one for the parsers and
 * one for HTTP, one for the import, one for workflows, one for the soak, one for fairness and one for
 * the outbox, and the same numbers with the machine and settings as JSON in
 * bench/results/latest.json (ignored by git: results belong to a machine and a moment, not to the
 * source).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import type { FairnessResult, FairnessRun } from "./fairness.js";
import { IMPORT_BATCH_SIZE, type ImportResult, type ImportRun } from "./import.js";
import type { Measurement } from "./load.js";
import type { OutboxResult } from "./outbox.js";
import type { ParserResult } from "./parser.js";
import type { BenchSettings, Floor } from "./settings.js";
import type { SoakResult } from "./soak.js";
import type { WorkflowResult } from "./workflow.js";

export interface ScenarioResult {
  readonly scenario: string;
  readonly host: Measurement;
  /** the same scenario on each floor, in BENCH_FLOORS order */
  readonly floors: readonly { readonly floor: Floor; readonly measured: Measurement }[];
}

/** everything measured at one scale */
export interface ScaleRun {
  readonly scale: number;
  /** the bench tenant's sales orders and their lines */
  readonly orders: number;
  readonly lines: number;
  readonly results: readonly ScenarioResult[];
  readonly imported: ImportResult | undefined;
  readonly workflow: WorkflowResult | undefined;
  readonly soak: SoakResult | undefined;
  readonly fairness: FairnessResult | undefined;
  readonly outbox: OutboxResult | undefined;
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

/** host req/s over each floor's */
const ratios = (r: ScenarioResult) => Object.fromEntries(r.floors.map((f) => [f.floor, r.host.rps / f.measured.rps]));

const failures = (m: Measurement) =>
  [
    ...Object.entries(m.statuses).map(([status, n]) => `${n}×${status}`),
    ...(m.errors ? [`${m.errors}×error`] : []),
  ].join(" ") || "0";

/** whole microseconds, or – when not known */
const micros = (us: number | undefined) => (us === undefined ? "–" : us.toFixed(0));
/** a server's CPU per request and PostgreSQL's for it */
const machineCpu = (m: Measurement) => `${micros(m.cpuPerRequest)} + ${micros(m.postgresCpuPerRequest)}`;

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
  const floors = results[0]?.floors.map((f) => f.floor) ?? [];
  const head = [
    "scenario",
    "host req/s",
    "host p50 ms",
    "host p99 ms",
    ...floors.flatMap((f) => [`${f} req/s`, `${f} p50 ms`]),
    ...floors.map((f) => `host/${f}`),
    "host CPU µs/req (server + PostgreSQL)",
    ...floors.map((f) => `${f} CPU µs/req (server + PostgreSQL)`),
    `failed (host / ${floors.join(" / ")})`,
  ];
  const rows = results.map((r) => [
    r.scenario,
    r.host.rps.toFixed(0),
    String(r.host.p50),
    String(r.host.p99),
    ...r.floors.flatMap((f) => [f.measured.rps.toFixed(0), String(f.measured.p50)]),
    ...r.floors.map((f) => (r.host.rps / f.measured.rps).toFixed(2)),
    machineCpu(r.host),
    ...r.floors.map((f) => machineCpu(f.measured)),
    [failures(r.host), ...r.floors.map((f) => failures(f.measured))].join(" / "),
  ]);
  return [
    `${machineLine(m)} · ${settings.connections} connections, ${settings.duration} s per target after ${settings.warmup} s warm-up, in ${settings.slices} slices, the targets taking turns (req/s, latencies and CPU: the median slice; a scenario too slow for 20 requests per connection in a slice in one piece) · CPU µs/req: per answered request, the server process's own CPU + the PostgreSQL server's (all its processes on this machine; – with the database elsewhere), the load generator's not included; once the cores are busy, a target's req/s follows the sum · floors: isolated = the host's isolation (the statement alone on a session set for the tenant); bare = the statement alone, as the owner; transaction = the statement in the tenant transaction, one round trip; awaited = the tenant transaction, each step awaited`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

/** which scale a run's tables are about */
export const scaleLine = (run: ScaleRun): string =>
  `## scale ${run.scale}×${run.orders > 0 ? `: tenant bench holds ${run.orders.toLocaleString("en-US")} sales orders with ${run.lines.toLocaleString("en-US")} lines` : ""}`;

/**
 * Every scale against the smallest: p50 latency and req/s of each scenario on the host, and the
 * import's and the commit's throughput, so what grows with the data stands out (a ratio near 1
 * does not grow).
 */
export function growthTable(runs: readonly ScaleRun[]): string {
  const [small, ...large] = runs;
  const head = [
    "host at scale",
    ...runs.map((r) => `p50 ms ${r.scale}×`),
    ...large.map((r) => `p50 ${r.scale}×/${small!.scale}×`),
    ...runs.map((r) => `req/s ${r.scale}×`),
  ];
  const rows: string[][] = (small?.results ?? []).map((first) => {
    const at = runs.map((r) => r.results.find((x) => x.scenario === first.scenario)?.host);
    return [
      first.scenario,
      ...at.map((m) => (m === undefined ? "–" : String(m.p50))),
      ...at.slice(1).map((m) => (m === undefined ? "–" : (m.p50 / Math.max(first.host.p50, 1)).toFixed(2))),
      ...at.map((m) => (m === undefined ? "–" : m.rps.toFixed(0))),
    ];
  });
  const throughput = (name: string, of: (r: ScaleRun) => number | undefined, unit: string) => {
    const values = runs.map(of);
    if (values.every((v) => v === undefined)) return;
    const first = values[0];
    rows.push([
      `${name} (${unit})`,
      ...values.map((v) => (v === undefined ? "–" : v.toFixed(1))),
      ...values.slice(1).map((v) => (v === undefined || first === undefined ? "–" : (v / first).toFixed(2))),
      ...runs.map(() => ""),
    ]);
  };
  throughput("import $batch", (r) => r.imported && 1000 / r.imported.batch.ordersPerSecond, "ms per order");
  throughput("import single POST", (r) => r.imported && 1000 / r.imported.single.ordersPerSecond, "ms per order");
  throughput("workflow staged PATCH p50", (r) => r.workflow?.late.p50, "ms");
  throughput("workflow commit", (r) => r.workflow && r.workflow.commit.ms / r.workflow.commit.changes, "ms per change");
  return [
    `Growth: each scale against ${small!.scale}× (p50 of the host's scenarios, time per order or change of the import and the commit); 1.00 does not grow`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export function importTables(r: ImportResult, m: Machine): string {
  const head = [
    "import",
    "requests",
    "seconds",
    "orders/s",
    "orders+lines/s",
    "p50 ms",
    "p99 ms",
    "CPU µs/order (host + PostgreSQL + client)",
  ];
  const cpu = (c: ImportRun["cpuPerOrder"]) =>
    [c.host, c.postgres, c.client].map((x) => (x === undefined ? "–" : x.toFixed(0))).join(" + ");
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
    cpu(run.cpuPerOrder),
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

export function soakTable(r: SoakResult, m: Machine, s: Pick<BenchSettings, "host">): string {
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
    `${machineLine(m)} · soak: ${r.requests.toLocaleString("en-US")} point reads against one host process (${s.host === "installed" ? "the packed packages installed with npm" : "the workspace's packages"}), ${r.connections} connections, after a warm-up of ${r.warmupRequests.toLocaleString("en-US")}`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export function fairnessTable(r: FairnessResult, m: Machine): string {
  const head = [
    "other tenant's GET /api/Product(<guid>)?$select=SKU,Cost",
    "req/s",
    "p50 ms",
    "p99 ms",
    "failed",
    "heavy batches answered",
    "MB, s a batch",
  ];
  const ms = (n: number) => n.toFixed(2);
  const rows = r.runs.flatMap((run) => {
    const statuses = Object.entries(run.heavy.statuses)
      .map(([status, n]) => `${n} × ${status}`)
      .join(", ");
    const reads = (w: FairnessRun["idle"]) => [ops(w.rps), ms(w.p50), ms(w.p99), String(w.failed)];
    return [
      [`share ${run.share}: idle host`, ...reads(run.idle), "", ""],
      [
        `share ${run.share}: under the heavy batches`,
        ...reads(run.loaded),
        statuses || "none",
        `${(run.heavy.bytes / 1e6).toFixed(1)}, ${(run.heavy.ms / 1000).toFixed(1)}`,
      ],
      [`share ${run.share}: loaded/idle`, "", run.ratio.p50.toFixed(2), run.ratio.p99.toFixed(2), "", "", ""],
    ];
  });
  return [
    `${machineLine(m)} · fairness: ${r.readers} connections read another tenant's products by key, one request after another each, on the idle host, then while ${r.heavyConnections} connections of the bench tenant send $batch of 64 × SalesOrder?$top=1000&$expand=Details one after another; on the host with its tenant share, then on one with DATABASE_TENANT_SHARE=1 (a tenant may take the whole pool)`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export function outboxTable(r: OutboxResult, m: Machine): string {
  const head = ["write", "change log on", "off", "on/off", "cost", "CPU µs on (host + PostgreSQL)", "off"];
  const cpu = (host: number | undefined, postgres: number | undefined) =>
    [host, postgres].map((x) => (x === undefined ? "–" : x.toFixed(0))).join(" + ");
  const cost = (ratio: number) => `${((1 - ratio) * 100).toFixed(1)} %`;
  const rows = [
    [
      "create: POST /api/Product (req/s)",
      ops(r.create.on.rps),
      ops(r.create.off.rps),
      r.create.ratio.toFixed(3),
      cost(r.create.ratio),
      cpu(r.create.on.cpuPerRequest, r.create.on.postgresCpuPerRequest),
      cpu(r.create.off.cpuPerRequest, r.create.off.postgresCpuPerRequest),
    ],
    [
      `$batch import: ${IMPORT_BATCH_SIZE} orders a changeset (orders/s)`,
      ops(r.import.on.ordersPerSecond),
      ops(r.import.off.ordersPerSecond),
      r.import.ratio.toFixed(3),
      cost(r.import.ratio),
      cpu(r.import.on.cpuPerOrder.host, r.import.on.cpuPerOrder.postgres),
      cpu(r.import.off.cpuPerOrder.host, r.import.off.cpuPerOrder.postgres),
    ],
  ];
  return [
    `${machineLine(m)} · outbox: the host with its change log (CHANGE_LOG on) and one with CHANGE_LOG=off on the same database, taking turns; the import of ${r.import.orders} orders × ${r.import.on.records / r.import.on.orders - 1} lines each way; CPU per request (create) or per order (import)`,
    "",
    ...markdown(head, rows),
  ].join("\n");
}

export async function writeJson(
  runs: readonly ScaleRun[],
  parser: readonly ParserResult[],
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
    scales: runs.map((run) => ({
      scale: run.scale,
      orders: run.orders,
      lines: run.lines,
      results: run.results.map((r) => ({ ...r, ratios: ratios(r) })),
      import: run.imported ?? null,
      workflow: run.workflow ?? null,
      soak: run.soak ?? null,
      fairness: run.fairness ?? null,
      outbox: run.outbox ?? null,
    })),
    loadAverageAfter: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
  return file.pathname;
}
