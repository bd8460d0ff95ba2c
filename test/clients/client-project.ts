/**
 * A throwaway client project for a code generator from npm: a temporary folder holding the
 * service's `$metadata` as a file, where the generator's command line runs as its users run it
 * (`npx <bin> …`). The folder's `node_modules` is a link to the workspace's, which has the
 * generated code's runtime packages as exact devDependencies, so the generated files import
 * them as they would in a user's project. Generated every run: the tests prove that the
 * current model's `$metadata` makes a working client, not that an old generated copy still works.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

export interface ClientProject {
  readonly dir: string;
  /** `bizdata.xml` in `dir`: the service's `$metadata` (generators name the client after it) */
  readonly metadataFile: string;
  /** runs an installed package's command in `dir`, as `npx <bin> <args>` would; a non-zero exit rejects with its output */
  npx(bin: string, args: readonly string[]): Promise<string>;
  /** imports a generated TypeScript module, by its path in `dir` */
  load<T = any>(path: string): Promise<T>;
  remove(): Promise<void>;
}

export async function clientProject(label: string, metadataXml: string): Promise<ClientProject> {
  const dir = await mkdtemp(join(tmpdir(), `bizdata-${label}-`));
  await symlink(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: `${label}-client`, private: true, type: "module" }),
  );
  // odata2ts reads the project's tsconfig.json for the compiler options of what it emits
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
      },
    }),
  );
  const metadataFile = join(dir, "bizdata.xml");
  await writeFile(metadataFile, metadataXml);
  await mkdir(join(dir, "generated"));
  return {
    dir,
    metadataFile,
    async npx(bin, args) {
      try {
        const { stdout, stderr } = await run(join(root, "node_modules", ".bin", bin), [...args], {
          cwd: dir,
          env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
          maxBuffer: 16 * 1024 * 1024,
        });
        return stdout + stderr;
      } catch (err) {
        const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
        throw new Error(`${bin} ${args.join(" ")} failed:\n${stdout}${stderr}`);
      }
    },
    load: (path) => import(/* @vite-ignore */ pathToFileURL(join(dir, path)).href),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
