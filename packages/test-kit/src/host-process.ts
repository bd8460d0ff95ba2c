/**
 * The reference host as an operator runs it: the `bizdata` CLI in a process of its own
 * (`node --import tsx packages/host/src/cli.ts …`), for tests of what only a real process shows —
 * that it does not exit, and how it stops on a signal.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const cli = ["--import", "tsx", "packages/host/src/cli.ts"];
/** the reference host: the CLI pointed at the sample model */
const reference = ["--config", "examples/src/host/reference-host.ts"];
const run = promisify(execFile);

/** runs one CLI command to its end and returns its stdout; a non-zero exit rejects */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [...cli, ...args, ...reference], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return stdout;
}

export interface HostProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** resolves with the exit code (null when killed by a signal) */
  readonly exited: Promise<number | null>;
  /** stdout and stderr so far, for a failing test's message */
  readonly output: () => string;
}

/** starts `bizdata serve` on a free loopback port and resolves once it listens */
export function startHostProcess(env: NodeJS.ProcessEnv): Promise<HostProcess> {
  const child = spawn(process.execPath, [...cli, "serve", ...reference], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onLine = (line: string) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url) resolve({ url: entry.url, child, exited, output: () => output });
      } catch {
        // not a log line
      }
    };
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    void exited.then((code) => reject(new Error(`the host exited with ${code} before listening:\n${output}`)));
  });
}
