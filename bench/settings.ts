/**
 * What one bench run is configured with, read from the environment once, so a typo fails before
 * minutes of seeding and load instead of silently running with a default.
 */
export interface BenchSettings {
  readonly databaseUrl: string;
  /** measured seconds per scenario and target */
  readonly duration: number;
  /** unmeasured seconds before each measurement: JIT, prepared statements and pools warm up */
  readonly warmup: number;
  readonly connections: number;
  /** fraction of the default sample sizes seeded into a new bench tenant (0 < scale ≤ 1) */
  readonly scale: number;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number, integer: boolean): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!(n > 0 && n <= max) || (integer && !Number.isInteger(n)))
    throw new Error(`${name}=${raw} is not ${integer ? "an integer" : "a number"} above 0 and at most ${max}.`);
  return n;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  return {
    databaseUrl: env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test",
    duration: positive(env, "BENCH_DURATION", 10, 3600, true),
    warmup: positive(env, "BENCH_WARMUP", 2, 600, true),
    connections: positive(env, "BENCH_CONNECTIONS", 10, 1000, true),
    scale: positive(env, "BENCH_SCALE", 1, 1, false),
  };
}
