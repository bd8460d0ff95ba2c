import cliProgress from "cli-progress";
import type { SeedProgress } from "./seed-sample-data.js";

/** a progress bar on a terminal; nothing when output is piped (CI logs stay readable) */
export function consoleProgress(label: string): SeedProgress | undefined {
  if (!process.stderr.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} records | {eta}s left`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  return {
    start: (total) => bar.start(total, 0),
    advance: (n) => bar.increment(n),
    stop: () => bar.stop(),
  };
}
