/** CPU time of a server process, which other processes on a shared machine disturb far less than its throughput */
import { readFile } from "node:fs/promises";

// Linux's USER_HZ, the unit of /proc/<pid>/stat times, is 100 on every common architecture
const CLOCK_TICKS = 100;

/** user + system CPU seconds of a process so far, from /proc (undefined elsewhere) */
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
 * Runs `work` and returns its result with the CPU microseconds process `pid` spent per request
 * it answered meanwhile (`answered` of the result); undefined without /proc or without answers
 */
export async function cpuPerRequest<T>(
  pid: number | undefined,
  work: () => Promise<T>,
  answered: (result: T) => number,
): Promise<{ result: T; cpuPerRequest: number | undefined }> {
  const before = await cpuSeconds(pid);
  const result = await work();
  const after = await cpuSeconds(pid);
  const n = answered(result);
  return {
    result,
    cpuPerRequest: before === undefined || after === undefined || n === 0 ? undefined : ((after - before) * 1e6) / n,
  };
}
