/**
 * The host under test as a team installs it (BENCH_HOST=installed): the packed packages installed
 * with npm into a project outside the workspace (@bizdata/test-kit/packed-packages), the sample
 * model's sources copied beside them, served by the installed `bizdata serve`. Every package the
 * host loads, the PostgreSQL driver included, is then the published one, not the workspace's.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npmInstall, packPackages, root } from "@bizdata/test-kit/packed-packages";
import { freePort } from "@bizdata/test-kit/postgres-cluster";
import type { RunningServer } from "./servers.js";

export interface InstalledHost {
  /** the project the packages are installed in */
  readonly project: string;
  start(env: NodeJS.ProcessEnv, nodeOptions: readonly string[]): Promise<RunningServer>;
  /** removes the project */
  remove(): void;
}

/** packs and installs the packages; the sample model (examples/src/domain, which imports @bizdata/core alone) goes along as TypeScript */
export async function installHost(): Promise<InstalledHost> {
  const work = mkdtempSync(join(tmpdir(), "bizdata-bench-installed-"));
  const project = join(work, "project");
  const tarballs = await packPackages(join(work, "tarballs"));
  await npmInstall(project, tarballs, tarballs);
  const domain = join(root, "examples/src/domain");
  mkdirSync(join(project, "domain"));
  for (const file of readdirSync(domain).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts")))
    copyFileSync(join(domain, file), join(project, "domain", file));
  writeFileSync(join(project, "model.ts"), 'export { sampleModel as model } from "./domain/model.ts";\n');
  return {
    project,
    start: (env, nodeOptions) => serve(project, env, nodeOptions),
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}

/**
 * `bizdata serve` of the installed host in a process of its own, run by node itself (no npx in
 * between, so the pid is the host's for its CPU time), with the settings bench/host-server.ts
 * gives the workspace's host; ready once /health answers on the port it was given.
 */
async function serve(project: string, env: NodeJS.ProcessEnv, nodeOptions: readonly string[]): Promise<RunningServer> {
  const port = await freePort();
  const cli = join(project, "node_modules/@bizdata/host/dist/cli.js");
  const child = spawn(
    process.execPath,
    ["--max-semi-space-size=64", ...nodeOptions, cli, "serve", "--model", "./model.ts"],
    {
      cwd: project,
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        LOG_LEVEL: "warn",
        RATE_LIMIT_PER_TOKEN: "10000000",
        RATE_LIMIT_PER_ADDRESS: "10000000",
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const answered = await Promise.race([
      fetch(`${url}/health`).then(
        (res) => res.ok,
        () => false,
      ),
      exited.then((code) => {
        throw new Error(`the installed host exited with code ${code} before listening.`);
      }),
    ]);
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      // a host stuck closing must not hang the run after its numbers are in
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
