/**
 * Starts a server under test in a child process. The load generator (autocannon) and the server
 * share two cores with PostgreSQL; in one process autocannon's own event-loop work would be
 * charged to the server and both would stall each other's event loop, so each server gets a
 * process of its own and the host and the floor are measured under the same conditions.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface RunningServer {
  readonly url: string;
  /** the child process's id, to read its CPU time (soak.ts) */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** `nodeOptions`: more Node flags for the child, such as `--cpu-prof` (not allowed in NODE_OPTIONS) */
export function startServer(
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeOptions: readonly string[] = [],
): Promise<RunningServer> {
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), {
    // the young generation the reference host runs with (`pnpm start`; README, Operating the host),
    // for the floors too: the same runtime for every server measured
    execArgv: ["--max-semi-space-size=64", "--import", "tsx", ...nodeOptions],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${entry} exited with code ${code} before listening.`)));
    child.once("message", (message: { url: string }) =>
      resolve({
        url: message.url,
        pid: child.pid,
        async stop() {
          child.disconnect();
          // a server stuck closing must not hang the run after its numbers are in
          const timer = setTimeout(() => child.kill(), 5000);
          await exited;
          clearTimeout(timer);
        },
      }),
    );
  });
}
