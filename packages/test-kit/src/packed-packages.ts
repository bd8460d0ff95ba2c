/**
 * The workspace's packages as a team gets them: every publishable package built, packed with
 * `pnpm pack` (which writes `workspace:*` as the version it stands for) and installed with plain
 * npm into a project outside the workspace. The pack test (test/package) runs its tests there; the
 * bench serves from such an install with BENCH_HOST=installed (bench/installed-host.ts).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** the workspace's root folder */
export const root = resolve(import.meta.dirname, "../../..");

const PNPM = ["-y", "pnpm@10.34.8"];

// npm and pnpm pass their settings to children as npm_* variables; the project's npm gets none of them
export const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

export interface Output {
  readonly stdout: string;
  readonly stderr: string;
}

/** runs a command to its end; rejects with its output when it fails */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Output> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...cleanEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolvePromise({ stdout, stderr })
        : reject(new Error(`${command} ${args.join(" ")} exited with ${code}\n${stdout}\n${stderr}`)),
    );
  });
}

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
}

/** the packages of packages/ that are published, with their folders */
export const publishable = readdirSync(join(root, "packages"))
  .map((dir) => join(root, "packages", dir))
  .map((dir) => ({ dir, ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest) }))
  .filter((p) => p.private !== true);

/** builds and packs every publishable package into `folder`; resolves with the tarballs by package name, as `file:` specifiers */
export async function packPackages(folder: string): Promise<Record<string, string>> {
  // a clean build: files of moved or deleted sources must not linger in dist/ and get packed
  for (const { dir } of publishable) {
    rmSync(join(dir, "dist"), { recursive: true, force: true });
    rmSync(join(dir, "tsconfig.tsbuildinfo"), { force: true });
  }
  const filters = publishable.flatMap(({ name }) => ["--filter", name]);
  await run("npx", [...PNPM, "-r", ...filters, "build"], root);
  await run("npx", [...PNPM, "-r", ...filters, "pack", "--pack-destination", folder], root);
  return Object.fromEntries(
    publishable.map(({ name, version }) => [
      name,
      `file:${join(folder, `${name.replace("@", "").replace("/", "-")}-${version}.tgz`)}`,
    ]),
  );
}

/**
 * Makes `project` an npm project with these dependencies and installs them; `tarballs` are
 * overrides too, so the packages' own dependencies on each other go to the tarballs, never to a
 * registry.
 */
export async function npmInstall(
  project: string,
  tarballs: Record<string, string>,
  dependencies: Record<string, string>,
): Promise<void> {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "bizdata-packed", private: true, type: "module", dependencies, overrides: tarballs }),
  );
  // swagger-ui-dist (the docs page) depends on @scarf/scarf, whose install script reports the
  // install unless told not to
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], project, {
    SCARF_ANALYTICS: "false",
  });
}
