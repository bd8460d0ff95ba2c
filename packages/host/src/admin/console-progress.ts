import cliProgress from "cli-progress";

export interface Progress {
  advance(records: number): void;
  stop(): void;
}

/** a progress bar on a terminal, started at 0 of `total`; nothing when output is piped (CI logs stay readable) */
export function consoleProgress(label: string, total: number): Progress | undefined {
  if (!process.stderr.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} records | {eta}s left`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { advance: (n) => bar.increment(n), stop: () => bar.stop() };
}
