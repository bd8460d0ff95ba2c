/**
 * The soak part of `pnpm bench` (issue 12; architecture: "A known dependency defect"): does the
 * host serve as fast after a million requests as after the first hundred thousand? postgres.js
 * 3.4.9 did not: with a pool of two or more connections its connection queues grew by a slot per
 * query and were scanned on every one (fixed in the fork, @bizdata/postgres). One host process with its
 * configured pool (DATABASE_POOL_SIZE, default 10), BENCH_SOAK_CONNECTIONS requests in flight
 * (default 4: fewer than the pool's connections, as in steady service after a peak, which the
 * warm-up at BENCH_CONNECTIONS is), point reads by key (the read-one scenario's requests), BENCH_SOAK_REQUESTS of them (default 1,000,000) after
 * an unmeasured warm-up, in
 * windows of 100,000 back to back, each one autocannon run against the same process: throughput,
 * p99 and the host's CPU time per request per window, and the last window over the first. It runs only when BENCH_ONLY names it,
 * as it takes minutes.
 */

import autocannon from "autocannon";
import { cpuPerRequest } from "./process-cpu.js";
import type { ScenarioData } from "./scenarios.js";
import { scenarios } from "./scenarios.js";
import type { BenchSettings } from "./settings.js";

/** the name BENCH_ONLY knows this part by */
export const SOAK_PART = "soak";

export const SOAK_WINDOW = 100_000;

export interface SoakWindow {
  /** the requests of the window, counted from the first measured one */
  readonly from: number;
  readonly to: number;
  readonly rps: number;
  /** ms */
  readonly p50: number;
  readonly p99: number;
  /** non-2xx answers, connection errors and timeouts */
  readonly failed: number;
  /**
   * CPU time the host process spent per request, in µs (Linux only): unlike req/s it does not
   * move with other work sharing the cores, so it shows drift on a busy machine too
   */
  readonly hostCpuMicros: number | undefined;
}

export interface SoakResult {
  readonly requests: number;
  readonly connections: number;
  /** requests of the warm-up before the first window */
  readonly warmupRequests: number;
  readonly windows: readonly SoakWindow[];
  /** last window over the first */
  readonly ratio: { readonly rps: number; readonly p99: number; readonly hostCpu: number | undefined };
}

export async function runSoak(
  url: string,
  hostPid: number | undefined,
  token: string,
  data: ScenarioData,
  settings: BenchSettings,
): Promise<SoakResult> {
  const readOne = scenarios.find((s) => s.name === "read-one");
  if (readOne === undefined) throw new Error("the soak part reads with the read-one scenario, which is missing");
  const next = readOne.requests(data);
  const load = (connections: number, limit: { amount: number } | { duration: number }) =>
    autocannon({
      url,
      connections,
      ...limit,
      headers: { authorization: `Bearer ${token}` },
      requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
    });
  // the warm-up is the peak: BENCH_CONNECTIONS in flight open the pool's connections, which stay
  // open through the steadier load after it
  const warmup = await load(settings.connections, { duration: settings.warmup });
  const windows: SoakWindow[] = [];
  for (let from = 0; from < settings.soakRequests; from += SOAK_WINDOW) {
    const amount = Math.min(SOAK_WINDOW, settings.soakRequests - from);
    const started = performance.now();
    const { result, cpuPerRequest: hostCpuMicros } = await cpuPerRequest(
      hostPid,
      () => load(settings.soakConnections, { amount }),
      () => amount,
    );
    const rps = amount / ((performance.now() - started) / 1000);
    const window = {
      from: from + 1,
      to: from + amount,
      rps,
      p50: result.latency.p50,
      p99: result.latency.p99,
      failed: result.non2xx + result.errors + result.timeouts,
      hostCpuMicros,
    };
    windows.push(window);
    console.error(
      `soak: ${window.to.toLocaleString("en-US")} requests, ${Math.round(rps)} req/s, p99 ${window.p99} ms, host CPU ${window.hostCpuMicros?.toFixed(0) ?? "?"} µs/request, ${window.failed} failed`,
    );
  }
  const first = windows[0]!;
  const last = windows.at(-1)!;
  return {
    requests: settings.soakRequests,
    connections: settings.soakConnections,
    warmupRequests: warmup.requests.total,
    windows,
    ratio: {
      rps: last.rps / first.rps,
      p99: last.p99 / first.p99,
      hostCpu:
        first.hostCpuMicros === undefined || last.hostCpuMicros === undefined
          ? undefined
          : last.hostCpuMicros / first.hostCpuMicros,
    },
  };
}

/** more than a tenth of a window failed: its figures measure errors, not reads */
export const soakFailed = (r: SoakResult): boolean => r.windows.some((w) => w.failed > (w.to - w.from + 1) / 10);
