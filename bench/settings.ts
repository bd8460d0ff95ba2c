/**
 * What one bench run is configured with, read from the environment once, so a typo fails before
 * minutes of seeding and load instead of silently running with a default.
 */
export interface BenchSettings {
  readonly databaseUrl: string;
  /** measured seconds per scenario and target */
  readonly duration: number;
  /**
   * the slices the measured seconds are cut into (BENCH_SLICES): the targets of a scenario take
   * turns, one slice each, round after round, so a slow spell of the shared machine falls on all
   * of them alike (load.ts: measureInTurns)
   */
  readonly slices: number;
  /** unmeasured seconds before each measurement: JIT, prepared statements and pools warm up */
  readonly warmup: number;
  readonly connections: number;
  /**
   * the sizes of sample data the run measures, each a multiple of the default sample sizes
   * (BENCH_SCALES=1,10, or one as BENCH_SCALE): a fraction up to 1, or a whole number up to 100
   * (10: 200,000 orders and a million order lines). Each scale has a database of its own (scale 1
   * the one DATABASE_URL names, the others beside it: prepare.ts), and every part of the run is
   * measured at each, so the ratio large/small shows what grows with the data.
   */
  readonly scales: readonly number[];
  /** the floors the host is measured against (BENCH_FLOORS), see FLOORS */
  readonly floors: readonly Floor[];
  /**
   * the HTTP scenarios to run, by name (BENCH_ONLY=read-one,query-filter), `import` for the import
   * part, `workflow` for the workflow part, `soak` for the soak part; all but the soak part when
   * undefined
   */
  readonly only: readonly string[] | undefined;
  /** the parser throughput part (BENCH_PARSER): run it too, skip it (`0`), or run nothing else (`only`) */
  readonly parser: "on" | "off" | "only";
  /** measured seconds per query string and parser (BENCH_PARSER_SECONDS) */
  readonly parserSeconds: number;
  /** a folder for CPU profiles of the host and floor processes (BENCH_PROFILE), written when they stop */
  readonly profileDir: string | undefined;
  /**
   * sales orders the import part writes each way (BENCH_IMPORT_ORDERS); 0 skips the part. The
   * default, 10,000, gives the `$batch` way about 40 requests a round: with a few, its ramp-up
   * and its last requests' tail (fewer than the connections in flight) decide the figure
   */
  readonly importOrders: number;
  /** requests in flight during the import (BENCH_IMPORT_CONNECTIONS) */
  readonly importConnections: number;
  /** staged PATCHes in the workflow part's one workflow, then committed (BENCH_WORKFLOW_STEPS); 0 skips the part */
  readonly workflowSteps: number;
  /** sizes of the workflow part's bulk-staged commits (BENCH_WORKFLOW_COMMITS, comma-separated) */
  readonly workflowCommits: readonly number[];
  /** point reads of the soak part (BENCH_SOAK_REQUESTS), which runs only when BENCH_ONLY names `soak` */
  readonly soakRequests: number;
  /**
   * requests in flight during the soak (BENCH_SOAK_CONNECTIONS): fewer than the host's pool has
   * connections, so some are always idle — the steady state in which postgres.js 3.4.9's queue of
   * open connections never drained
   */
  readonly soakConnections: number;
  /**
   * the host measured (BENCH_HOST): `workspace`, the workspace's packages compiled (servers.ts), or
   * `installed`, the packed packages installed with npm outside the workspace (installed-host.ts)
   */
  readonly host: "workspace" | "installed";
}

/**
 * The hand-written servers the host is compared with (floor-server.ts): all run the same one
 * statement per request; they differ in what they pay around it.
 * - `isolated`: the host's isolation at its cost: the statement alone on a connection opened in
 *   the application role and holding the tenant, read-only for a read (a create's one statement
 *   goes alone like a read's);
 * - `transaction`: every statement in a transaction that switches to the application role and
 *   sets the tenant, BEGIN, set-up, statement and COMMIT sent together, one round trip (how the
 *   host read before it kept sessions set for a tenant, and wrote before they served writes);
 * - `bare`: the statement alone, on the pool, no transaction (the tenant predicate in the SQL);
 * - `awaited`: the isolated transaction with every step awaited, four round trips (how the host
 *   and the floor worked before), to measure what pipelining saves.
 */
export const FLOORS = ["isolated", "bare", "transaction", "awaited"] as const;
export type Floor = (typeof FLOORS)[number];

function floors(raw: string | undefined): Floor[] {
  if (raw === undefined || raw.trim() === "") return ["isolated", "bare"];
  const names = raw.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(FLOORS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`BENCH_FLOORS=${raw}: ${unknown.join(", ")} is no floor; the floors are ${FLOORS.join(", ")}.`);
  return [...new Set(names as Floor[])];
}

// 30x (600,000 orders, 3 million order lines) is multiplied in about 3 minutes and takes 1.7 GB;
// 100x would take ten times that: the limit is a typo guard, not a capacity
const MAX_SCALE = 100;

function scales(env: NodeJS.ProcessEnv): number[] {
  if (env.BENCH_SCALES && env.BENCH_SCALE)
    throw new Error("BENCH_SCALES and BENCH_SCALE are both set: BENCH_SCALES=1,10 names every scale, BENCH_SCALE one.");
  const name = env.BENCH_SCALES ? "BENCH_SCALES" : "BENCH_SCALE";
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return [1];
  const values = raw.split(",").map((item) => {
    const n = Number(item.trim());
    if (!(item.trim() !== "" && ((n > 0 && n <= 1) || (Number.isInteger(n) && n > 1 && n <= MAX_SCALE))))
      throw new Error(
        `${name}=${raw}: "${item.trim()}" is no scale; a scale is a fraction above 0 up to 1, or a whole number up to ${MAX_SCALE}.`,
      );
    return n;
  });
  return [...new Set(values)].sort((a, b) => a - b);
}

/** a whole number from 1 that the environment may set: a bench script's own setting (LAYERS_ROUNDS, …) */
export const wholeSetting = (name: string, fallback: number): number => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${process.env[name]} is not a whole number from 1.`);
  return n;
};

function positive(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  max: number,
  integer: boolean,
  min: 0 | "above 0" = "above 0",
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!((min === 0 ? n >= 0 : n > 0) && n <= max) || (integer && !Number.isInteger(n)))
    throw new Error(
      `${name}=${raw} is not ${integer ? "an integer" : "a number"} ${min === 0 ? "from 0" : "above 0"} and at most ${max}.`,
    );
  return n;
}

function parserMode(raw: string | undefined): BenchSettings["parser"] {
  switch (raw?.toLowerCase()) {
    case undefined:
    case "":
    case "1":
    case "on":
      return "on";
    case "0":
    case "off":
      return "off";
    case "only":
      return "only";
    default:
      throw new Error(`BENCH_PARSER=${raw} is not 1 (default: parser and HTTP), 0 (HTTP only) or only (parser only).`);
  }
}

/** one or more sizes of commits, each 1–100,000 changes */
function workflowCommits(env: NodeJS.ProcessEnv): number[] {
  const raw = env.BENCH_WORKFLOW_COMMITS;
  if (raw === undefined || raw === "") return [100, 10_000];
  const sizes = raw.split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 100_000))
    throw new Error(`BENCH_WORKFLOW_COMMITS=${raw} is not a comma-separated list of integers from 1 to 100,000.`);
  return sizes;
}

/** 0, or enough steps for two latency windows of 50 (workflow.ts) */
function workflowSteps(env: NodeJS.ProcessEnv): number {
  const steps = positive(env, "BENCH_WORKFLOW_STEPS", 1000, 20_000, true, 0);
  if (steps > 0 && steps < 100)
    throw new Error(`BENCH_WORKFLOW_STEPS=${steps}: 0 skips the workflow part, else it needs at least 100 steps.`);
  return steps;
}

function hostKind(raw: string | undefined): "workspace" | "installed" {
  if (raw === undefined || raw === "" || raw === "workspace") return "workspace";
  if (raw === "installed") return raw;
  throw new Error(`BENCH_HOST=${raw} is neither workspace nor installed.`);
}

/** BENCH_SLICES, at most one per measured second */
function slices(env: NodeJS.ProcessEnv, duration: number): number {
  const n = positive(env, "BENCH_SLICES", Math.min(5, duration), 3600, true);
  if (n > duration)
    throw new Error(`BENCH_SLICES=${n} cuts BENCH_DURATION=${duration} s into slices shorter than a second.`);
  return n;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const duration = positive(env, "BENCH_DURATION", 10, 3600, true);
  return {
    databaseUrl: env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
    duration,
    slices: slices(env, duration),
    warmup: positive(env, "BENCH_WARMUP", 2, 600, true),
    // 32: enough in flight to saturate the host on the machines it is measured on, as a reviewer measures
    connections: positive(env, "BENCH_CONNECTIONS", 32, 1000, true),
    scales: scales(env),
    floors: floors(env.BENCH_FLOORS),
    only: env.BENCH_ONLY ? env.BENCH_ONLY.split(",").map((name) => name.trim()) : undefined,
    parser: parserMode(env.BENCH_PARSER),
    parserSeconds: positive(env, "BENCH_PARSER_SECONDS", 1, 60, false),
    profileDir: env.BENCH_PROFILE || undefined,
    importOrders: positive(env, "BENCH_IMPORT_ORDERS", 10_000, 100_000, true, 0),
    importConnections: positive(env, "BENCH_IMPORT_CONNECTIONS", 4, 64, true),
    workflowSteps: workflowSteps(env),
    workflowCommits: workflowCommits(env),
    soakRequests: positive(env, "BENCH_SOAK_REQUESTS", 1_000_000, 100_000_000, true),
    soakConnections: positive(env, "BENCH_SOAK_CONNECTIONS", 4, 1000, true),
    host: hostKind(env.BENCH_HOST),
  };
}
