/**
 * CPU time of a server process, which other processes on a shared machine disturb far less than
 * its throughput, and of the PostgreSQL server it sends its statements to: the two together are
 * what a request costs the machine, which is what its throughput follows once the cores are busy.
 */
import { readdir, readFile } from "node:fs/promises";

// Linux's USER_HZ, the unit of /proc/<pid>/stat times, is 100 on every common architecture
const CLOCK_TICKS = 100;

/** user + system CPU seconds of a process so far, from /proc (undefined elsewhere, or once it is gone) */
async function cpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    // fields after the parenthesized command name: utime and stime are the 12th and 13th, in ticks
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds so far of every PostgreSQL server process on this machine (the backends, and the
 * WAL writer, checkpointer and autovacuum that writes also cost), by pid; empty without /proc or
 * with the database on another machine
 */
async function postgresCpu(): Promise<Map<number, number>> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const cpu = new Map<number, number>();
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const comm = await readFile(`/proc/${name}/comm`, "utf8").catch(() => "");
        if (comm.trim() !== "postgres") return;
        const seconds = await cpuSeconds(Number(name));
        if (seconds !== undefined) cpu.set(Number(name), seconds);
      }),
  );
  return cpu;
}

/**
 * CPU seconds the processes of `after` spent since `before`: a backend that a pool opened
 * meanwhile counts from its start; one that ended meanwhile is lost (pools keep theirs open)
 */
const spent = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);

/**
 * Runs `work` and returns its result with the CPU seconds process `pid` spent meanwhile and, with
 * `postgres`, those of the PostgreSQL server on this machine; undefined without /proc or without
 * such a server
 */
export async function cpuDuring<T>(
  pid: number | undefined,
  work: () => Promise<T>,
  { postgres = false } = {},
): Promise<{ result: T; seconds: number | undefined; postgresSeconds: number | undefined }> {
  const databaseBefore = postgres ? await postgresCpu() : new Map<number, number>();
  const before = await cpuSeconds(pid);
  const result = await work();
  const after = await cpuSeconds(pid);
  const databaseAfter = postgres ? await postgresCpu() : new Map<number, number>();
  return {
    result,
    seconds: before === undefined || after === undefined ? undefined : after - before,
    postgresSeconds: databaseAfter.size === 0 ? undefined : spent(databaseBefore, databaseAfter),
  };
}

/**
 * Runs `work` and returns its result with the CPU microseconds process `pid` spent per request
 * it answered meanwhile (`answered` of the result), and with `postgres`, those of the PostgreSQL
 * server on this machine; undefined without /proc, without such a server or without answers
 */
export async function cpuPerRequest<T>(
  pid: number | undefined,
  work: () => Promise<T>,
  answered: (result: T) => number,
  options: { postgres?: boolean } = {},
): Promise<{ result: T; cpuPerRequest: number | undefined; postgresCpuPerRequest: number | undefined }> {
  const { result, seconds, postgresSeconds } = await cpuDuring(pid, work, options);
  const n = answered(result);
  const perRequest = (s: number | undefined) => (n === 0 || s === undefined ? undefined : (s * 1e6) / n);
  return { result, cpuPerRequest: perRequest(seconds), postgresCpuPerRequest: perRequest(postgresSeconds) };
}
