/**
 * Progress of an import on stderr: records per second and the time left, as a bar on a terminal
 * (cli-progress) and as a line every few seconds when stderr is a file or a pipe (CI logs, `2>`).
 */
import cliProgress from "cli-progress";

export interface ImportProgress {
  /** `done` rows of the file are behind (stored or rejected), `rejected` of them rejected */
  update(done: number, rejected: number): void;
  stop(): void;
}

const EVERY_MS = 2000;

/** `1m05s`, `42s` */
export const duration = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
};

export function importProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  label: string,
  total: number,
  /** rows already done before this run (a resumed import): left out of the rate */
  start: number,
): ImportProgress {
  const began = performance.now();
  const rate = (done: number) => (done - start) / Math.max((performance.now() - began) / 1000, 0.001);
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total} rows | {rejected} rejected | {rate} rows/s | ETA {left}`,
        stream,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, start, { rejected: 0, rate: 0, left: "?" });
    return {
      update: (done, rejected) => {
        const r = rate(done);
        bar.update(done, { rejected, rate: Math.round(r), left: duration((total - done) / r) });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update(done, rejected) {
      const now = performance.now();
      if (now - last < EVERY_MS && done < total) return;
      last = now;
      const r = rate(done);
      stream.write(
        `${label}: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} rows, ${rejected.toLocaleString("en-US")} rejected, ${Math.round(r).toLocaleString("en-US")} rows/s, ETA ${duration((total - done) / r)}\n`,
      );
    },
    stop: () => {},
  };
}
