/**
 * The run's results: a Markdown table on stdout (pasteable into an issue) and the same numbers
 * with the machine and settings as JSON in bench/results/latest.json (ignored by git: results
 * belong to a machine and a moment, not to the source).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import type { Measurement } from "./load.js";
import type { BenchSettings } from "./settings.js";

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
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [
    `${new Date().toISOString()} · ${m.cores} cores (${m.cpu}) · Node ${m.node} · load before ${m.loadAverageBefore.join(" ")} · ${settings.connections} connections, ${settings.duration} s per run after ${settings.warmup} s warm-up`,
    "",
    line(head),
    line(head.map(() => "---")),
    ...rows.map(line),
  ].join("\n");
}

export async function writeJson(
  results: readonly ScenarioResult[],
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
    results: results.map((r) => ({ ...r, ratio: ratio(r) })),
  };
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`);
  return file.pathname;
}
