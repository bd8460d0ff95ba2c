/**
 * Starts a server under test in a child process. The load generator (autocannon) and the server
 * share two cores with PostgreSQL; in one process autocannon's own event-loop work would be
 * charged to the server and both would stall each other's event loop, so each server gets a
 * process of its own and the host and the floor are measured under the same conditions.
 */
import { execFileSync, fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Node flags under which the workspace's packages resolve to their compiled JavaScript (`dist`,
 * the `bizdata-built` export condition) instead of their TypeScript sources: the code an
 * application that installs them runs. Sources go through tsx, whose transform keeps every
 * function's name with a call for each closure made (esbuild's `keepNames`): the host spent 13%
 * more CPU per create that way.
 */
export const BUILT_PACKAGES = ["--conditions=bizdata-built"] as const;

/** the packages the host is made of, in the order they depend on each other */
const PACKAGES = ["core", "odata", "workflow", "host"].map((name) =>
  fileURLToPath(new URL(`../packages/${name}`, import.meta.url)),
);

/** compiles the host's packages into their `dist` folders (incremental: quick when nothing changed) */
export function buildPackages(): void {
  execFileSync(fileURLToPath(new URL("../node_modules/.bin/tsc", import.meta.url)), ["-b", ...PACKAGES], {
    stdio: "inherit",
  });
}

export interface RunningServer {
  readonly url: string;
  /** the child process's id, to read its CPU time (soak.ts) */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** more Node flags for the child, such as `--cpu-prof` (not allowed in NODE_OPTIONS) */
  readonly nodeOptions?: readonly string[];
  /** a message sent to the child once it runs, for what does not fit the environment */
  readonly setup?: unknown;
  /**
   * the Node binary the child runs on (default: the one running the bench), so that one checkout
   * on two runtimes compares (`pnpm bench:compare`, COMPARE_THIS_NODE and COMPARE_BASELINE_NODE)
   */
  readonly node?: string;
}

export function startServer(
  entry: string,
  env: NodeJS.ProcessEnv,
  { nodeOptions = [], setup, node }: ServerOptions = {},
): Promise<RunningServer> {
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), {
    ...(node === undefined ? {} : { execPath: node }),
    // the young generation the reference host runs with (`pnpm start`; README, Operating the host),
    // for the floors too: the same runtime for every server measured
    execArgv: ["--max-semi-space-size=64", "--import", "tsx", ...nodeOptions],
    env: { ...process.env, ...env },
    // standard output is the host's log (a line per request at the default level): written, as in
    // production, and discarded here, where the bench's own output would drown in it; a
    // crash a server prints to standard error still shows
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  if (setup !== undefined) child.send(setup as object);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // a CPU profile is written as the process exits, which takes seconds after a long run
  const closing = nodeOptions.includes("--cpu-prof") ? 120_000 : 5000;
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${entry} exited with code ${code} before listening.`)));
    child.once("message", (message: { url: string }) =>
      resolve({
        url: message.url,
        pid: child.pid,
        async stop() {
          child.disconnect();
          // a server stuck closing must not hang the run after its numbers are in
          const timer = setTimeout(() => {
            console.error(`${entry} did not stop within ${closing / 1000} s: killed.`);
            child.kill();
          }, closing);
          await exited;
          clearTimeout(timer);
        },
      }),
    );
  });
}
