/**
 * Imports the module the command line names (a config or a model), TypeScript too. A `.ts` or
 * `.mts` file loads through Node's own type stripping where the runtime has it (Node 22.18 and
 * 23.6 on by default, older 22s with --experimental-strip-types: `process.features.typescript`
 * says so), else through tsx, a dependency of this package since Node 20 has no type stripping,
 * registered for the rest of the process the first time a TypeScript file is asked for.
 *
 * tsx's `register`, not its `tsImport`: `tsImport` loads everything the file imports again under
 * a namespace of its own, so the model would be built by a second copy of @bizdata/core, and an
 * error its hooks throw would not be a ServiceError to the host's copy (a 500, not its 400).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const TYPESCRIPT = /\.m?ts$/;

/** tsx's hooks, registered once; later imports of TypeScript files wait for the same */
let typeScriptHooks: Promise<void> | undefined;

const nodeStripsTypes = () => Boolean((process.features as { typescript?: unknown }).typescript);

/** the "type" of the package.json nearest to `file`, the one Node reads to tell ES modules from CommonJS */
function packageType(file: string): unknown {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Imports the module at the absolute `path`; `label` names it in errors (`--model ./model.ts`). */
export async function importModule(path: string, label: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.test(path) && !nodeStripsTypes()) {
    // tsx compiles a `.ts` file of a CommonJS package to CommonJS, whose imports of the (ESM-only)
    // bizdata packages then fail with a "require() … in a cycle" that names neither cause nor fix
    if (path.endsWith(".ts") && packageType(path) !== "module") {
      throw new Error(
        `${label}: a TypeScript model or config is an ES module: add "type": "module" to the package.json of its project, or name the file .mts.`,
      );
    }
    typeScriptHooks ??= import("tsx/esm/api").then(({ register }) => {
      register();
    });
    await typeScriptHooks;
  }
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}
