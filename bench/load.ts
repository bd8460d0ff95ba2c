/**
 * Drives targets with a scenario: a probe request that must succeed, an unmeasured warm-up, then
 * measured autocannon runs on loopback, the targets taking turns (measureInTurns).
 */
import autocannon from "autocannon";
import { median } from "./median.js";
import { cpuPerRequest } from "./process-cpu.js";
import type { Scenario, ScenarioData } from "./scenarios.js";
import type { BenchSettings } from "./settings.js";

export interface Target {
  /** `host`, or the floor's kind */
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** the server's process, whose CPU time per request a measurement reports (when known) */
  readonly pid?: number | undefined;
}

export interface Measurement {
  /** mean of autocannon's per-second samples, all responses */
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly non2xx: number;
  /** connection errors and timeouts */
  readonly errors: number;
  /** non-2xx responses by status code, to tell a 401 from a 500 at a glance */
  readonly statuses: Readonly<Record<string, number>>;
  /**
   * the server process's CPU microseconds per answered request (user + system, its helper threads
   * included), undefined without its pid or /proc: what the server itself costs, which the other
   * processes on a shared machine disturb far less than its throughput
   */
  readonly cpuPerRequest: number | undefined;
  /**
   * the PostgreSQL server's CPU microseconds per answered request (all its processes on this
   * machine), undefined with the database elsewhere: with `cpuPerRequest`, what a request costs
   * the machine
   */
  readonly postgresCpuPerRequest: number | undefined;
}

const headersOf = (target: Target) => ({ ...target.headers, "content-type": "application/json" });

/**
 * Sends a scenario's first request once and returns the parsed body, so a broken scenario fails
 * with the server's own error before any load, and the caller can compare the targets' answers.
 */
export async function probe(target: Target, scenario: Scenario, data: ScenarioData): Promise<unknown> {
  const request = scenario.requests(data)();
  const response = await fetch(target.url + request.path, {
    method: request.method,
    headers: headersOf(target),
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(
      `${scenario.name} on ${target.name}: ${request.method} ${request.path} → ${response.status} ${text}`,
    );
  return JSON.parse(text);
}

/**
 * Seconds a request may take before autocannon gives up on it and counts an error. Its default,
 * 10, failed the aggregate over ten times the data: ten of them in flight, each 1.5 s of
 * PostgreSQL's CPU over its parallel workers, waited 4–9 s on two cores, and a floor's slowest
 * passed 10 s. A request that slow is measured as slow, not as failed; one that takes a minute
 * is stuck.
 */
const REQUEST_TIMEOUT = 60;

function run(target: Target, scenario: Scenario, data: ScenarioData, seconds: number, connections: number) {
  const next = scenario.requests(data);
  return autocannon({
    url: target.url,
    connections,
    duration: seconds,
    timeout: REQUEST_TIMEOUT,
    headers: headersOf(target),
    requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
  });
}

/** load without measuring: `settings.warmup` seconds of the scenario */
export async function warmUp(
  target: Target,
  scenario: Scenario,
  data: ScenarioData,
  settings: BenchSettings,
): Promise<void> {
  await run(target, scenario, data, settings.warmup, settings.connections);
}

/** how the targets of a scenario take turns: `rounds` slices of `slice` seconds each, after `warmup` seconds */
export interface Turns {
  readonly warmup: number;
  readonly rounds: number;
  readonly slice: number;
  readonly connections: number;
}

/** the turns of `pnpm bench`: its measured seconds cut into its slices */
export const benchTurns = (settings: BenchSettings): Turns => ({
  warmup: settings.warmup,
  rounds: settings.slices,
  slice: settings.duration / settings.slices,
  connections: settings.connections,
});

/**
 * Measures every target with the scenario in turns, interleaved in one run: each warmed up, then
 * round after round a slice of each, the order rotating (round `r` starts with target
 * `first + r`), so that no target always follows the same one and a slow spell of the shared
 * machine, which lasts seconds to minutes, falls on all of them alike (measured one after the
 * other for ten seconds each, the same targets' ratios moved by a fifth between runs). Each
 * target's measurement combines its slices (`combined`), in the order of `targets`; `progress`
 * is told of each round done.
 */
export async function measureInTurns(
  targets: readonly Target[],
  scenario: Scenario,
  data: ScenarioData,
  turns: Turns,
  first = 0,
  progress?: (round: number, rounds: number) => void,
): Promise<Measurement[]> {
  let slowest = 0;
  for (const target of targets) {
    const warm = await run(target, scenario, data, turns.warmup, turns.connections);
    // fewer answers than connections: most requests outlasted the warm-up, whose p50 (of the few
    // answered, or 0 of none) would pass the scenario for a fast one and cut it into slices that
    // answer nothing (the aggregate at 10x on a slow day: 0 req/s, no failure)
    const answered = warm["2xx"] + warm.non2xx;
    slowest = Math.max(slowest, answered < turns.connections ? turns.warmup * 1000 : warm.latency.p50);
  }
  // A slice holds many requests per connection, or it measures its ends: requests still running
  // when it stops are not counted, and keep its server busy during the next target's slice. A
  // slower scenario (the aggregate over ten times the data, over a second per request) is
  // measured in one piece per target.
  const { rounds, slice } =
    slowest * REQUESTS_PER_SLICE <= turns.slice * 1000 ? turns : { rounds: 1, slice: turns.rounds * turns.slice };
  const slices = targets.map((): Measurement[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const at = (first + round + i) % targets.length;
      slices[at]!.push(await sample(targets[at]!, scenario, data, slice, turns.connections));
    }
    progress?.(round + 1, rounds);
  }
  return slices.map(combined);
}

/** requests a connection completes in a slice at the least (at the slowest target's warm-up p50) */
const REQUESTS_PER_SLICE = 20;

/**
 * One measurement of a target's slices: the median slice's req/s, latencies and CPU per request,
 * which one disturbed slice does not move, and the answers and failures of all of them.
 */
export function combined(slices: readonly Measurement[]): Measurement {
  const medianOf = (figure: (m: Measurement) => number | undefined) => {
    const xs = slices.flatMap((m) => figure(m) ?? []);
    return xs.length === 0 ? undefined : median(xs);
  };
  const statuses: Record<string, number> = {};
  for (const m of slices)
    for (const [status, count] of Object.entries(m.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const sum = (figure: (m: Measurement) => number) => slices.reduce((n, m) => n + figure(m), 0);
  return {
    rps: medianOf((m) => m.rps)!,
    p50: medianOf((m) => m.p50)!,
    p99: medianOf((m) => m.p99)!,
    ok: sum((m) => m.ok),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    statuses,
    cpuPerRequest: medianOf((m) => m.cpuPerRequest),
    postgresCpuPerRequest: medianOf((m) => m.postgresCpuPerRequest),
  };
}

/** one measured run of `seconds`, without a warm-up */
export async function sample(
  target: Target,
  scenario: Scenario,
  data: ScenarioData,
  seconds: number,
  connections: number,
): Promise<Measurement> {
  const {
    result,
    cpuPerRequest: cpu,
    postgresCpuPerRequest,
  } = await cpuPerRequest(
    target.pid,
    () => run(target, scenario, data, seconds, connections),
    (r) => r["2xx"] + r.non2xx,
    { postgres: true },
  );
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith("2"))
      .map(([status, { count }]) => [status, count ?? 0]),
  );
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
    cpuPerRequest: cpu,
    postgresCpuPerRequest,
  };
}

/**
 * more failed than successful requests, or none answered at all (each outlasted its measurement):
 * the numbers describe error handling or nothing, not the scenario
 */
export const mostlyFailed = (m: Measurement): boolean => m.ok === 0 || m.non2xx + m.errors > m.ok;
