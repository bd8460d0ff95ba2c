/**
 * `bizdata <command>` for an application's own model: serve, migrate, seed, import, and tenant,
 * user, feature and key administration, against the database that `DATABASE_URL` (or `DATA_DIR`) names.
 * The model comes from `--config FILE`, `--model MODULE` or `bizdata.config.js`/`.ts` (load-config.ts).
 */
import { resolve } from "node:path";
import { type Database, describeDatabase, openDatabase } from "@bizdata/core";
import { adminContext } from "../admin/admin-context.js";
import { rotateSigningKey } from "../auth/signing-keys.js";
import type { BizdataConfig } from "../bizdata-config.js";
import { loadConfig } from "../config.js";
import { importFile } from "../import/import-file.js";
import { migrateService, migrationAdvice } from "../schema.js";
import { startHost } from "../server.js";
import { createTenant, setFeature, setUser, tenantFeatures } from "../tenants/tenant-admin.js";
import { CONFIG_FILES, loadBizdataConfig } from "./load-config.js";

export const usage = `usage: bizdata <command> [--config FILE | --model MODULE]
  serve                                         start the host (HOST, PORT, DATABASE_URL, DATA_DIR)
  migrate [--convert-large-tables]              create or upgrade the schema of the model; the flag also gives
                                                large tables of an earlier version byte-ordered tenant columns
                                                (their indexes are rebuilt under an exclusive lock)
  seed [ARGS…]                                  run the config's seed; ARGS are the seed's own
  tenant create ID [--name NAME]
  user create TENANT USERNAME --password PASSWORD [--role ROLE]     a role of ROLES; default admin
  feature enable|disable|list TENANT [FEATURE]
  keys rotate                                   a new signing key; tokens of the older ones stay valid until they expire
  import ENTITY FILE --tenant ID [--chunk N] [--resume] [--report FILE]
                                                load a .jsonl or .csv file through the write pipeline (logic,
                                                natural keys, validation) in chunks; rejected rows go to
                                                FILE.rejected.jsonl with their line; --resume goes on after a stop

The model: --config FILE (a config from defineConfig as default export, or model/seed/demo as
named exports), --model MODULE (a module exporting \`model\`, or a model as default export), or
else ${CONFIG_FILES.join(", ")} in the working directory. Each may be JavaScript or TypeScript
(.ts in a project whose package.json says "type": "module", or .mts).`;

export interface CliContext {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly print: (line: string) => void;
  /** where progress goes (default process.stderr) */
  readonly stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  /** the database the commands use, left open; default: open the one the environment names, close it after */
  readonly database?: Database;
}

/** takes `--name VALUE` and `--name=VALUE` out of `args`; the last one given wins */
function takeOption(args: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; ) {
    const arg = args[i]!;
    if (arg === `--${name}`) {
      value = args[i + 1];
      if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value.`);
      args.splice(i, 2);
    } else if (arg.startsWith(`--${name}=`)) {
      value = arg.slice(name.length + 3);
      args.splice(i, 1);
    } else i++;
  }
  return value;
}

type Command = (db: Database, app: BizdataConfig) => Promise<void>;

/** takes a flag without a value (`--resume`) out of `args`; whether it was there */
function takeFlag(args: string[], name: string): boolean {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return false;
  args.splice(at, 1);
  return true;
}

/** the command the arguments name, checked before any database is opened */
function commandOf(command: string, rest: readonly string[], context: CliContext): Command | undefined {
  const { env, print } = context;
  const [sub, ...args] = rest;
  switch (command) {
    case "import": {
      const more = [...rest];
      const tenantId = takeOption(more, "tenant");
      const chunk = takeOption(more, "chunk");
      const reportFile = takeOption(more, "report");
      const resume = takeFlag(more, "resume");
      const [entity, file] = more;
      if (entity === undefined || file === undefined || more.length !== 2) return undefined;
      if (tenantId === undefined) throw new Error("Give the tenant to import into with --tenant ID.");
      const chunkSize = chunk === undefined ? undefined : Number(chunk);
      if (chunkSize !== undefined && !(Number.isInteger(chunkSize) && chunkSize >= 1))
        throw new Error(`--chunk must be a positive integer, not "${chunk}".`);
      return async (db, app) => {
        const summary = await importFile({
          db,
          model: app.model,
          tenantId,
          entity,
          file: resolve(context.cwd, file),
          resume,
          writeLimits: loadConfig(context.env).writeLimits,
          ...(chunkSize !== undefined && { chunkSize }),
          ...(reportFile !== undefined && { reportFile: resolve(context.cwd, reportFile) }),
          ...(context.stderr && { stderr: context.stderr }),
        });
        print(
          `${summary.loaded} stored, ${summary.rejected} rejected, ${summary.skipped} done before; ${Math.round(summary.rowsPerSecond)} rows/s`,
        );
      };
    }
    case "migrate": {
      const more = [...rest];
      const convertLargeTables = takeFlag(more, "convert-large-tables");
      if (more.length > 0) return undefined;
      return async (db, app) => {
        const report = await migrateService(db, app.model, { convertLargeTables });
        if (report.converted.length > 0) print(`tenant columns byte-ordered in ${report.converted.join(", ")}`);
        for (const advice of migrationAdvice(report)) print(advice);
      };
    }
    case "seed":
      return async (db, app) => {
        if (app.seed === undefined)
          throw new Error("The config has no seed: export a seed function (admin, args) from it to use bizdata seed.");
        const started = Date.now();
        await app.seed(adminContext(db, app.model), rest);
        print(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      };
    case "tenant": {
      const name = takeOption(args, "name");
      const [id] = args;
      if (sub !== "create" || id === undefined || args.length !== 1) return undefined;
      return async (db) => {
        const created = await createTenant(db, id, name);
        print(created ? `tenant ${id} created` : `tenant ${id} already exists`);
      };
    }
    case "user": {
      const password = takeOption(args, "password") ?? env.BIZDATA_PASSWORD;
      const role = takeOption(args, "role") ?? "admin";
      const [tenant, username] = args;
      if (sub !== "create" || tenant === undefined || username === undefined || args.length !== 2) return undefined;
      if (!password) throw new Error("Give the password with --password or BIZDATA_PASSWORD.");
      // the roles this deployment defines (ROLES), not only the two defaults
      const known = Object.keys(loadConfig(env).roles);
      if (!known.includes(role)) throw new Error(`--role must be one of ${known.join(", ")} (ROLES), not "${role}".`);
      return async (db) => {
        await setUser(db, tenant, username, password, [role]);
        print(`user ${username} in tenant ${tenant} saved with role ${role}`);
      };
    }
    case "feature": {
      const [tenant, feature] = args;
      if (sub === "list" && tenant !== undefined && args.length === 1)
        return async (db) => print((await tenantFeatures(db, tenant)).join("\n"));
      if ((sub !== "enable" && sub !== "disable") || tenant === undefined || feature === undefined || args.length !== 2)
        return undefined;
      return async (db) => {
        await setFeature(db, tenant, feature, sub === "enable");
        print(`feature ${feature} ${sub}d for tenant ${tenant}`);
      };
    }
    case "keys":
      if (sub !== "rotate" || args.length > 0) return undefined;
      return async (db) => {
        print(`signing key ${await rotateSigningKey(db)} stored; hosts sign with it after their next start`);
      };
  }
  return undefined;
}

/** Runs one command; resolves with the running host for `serve`, else when the command is done. */
export async function runCli(argv: readonly string[], context: CliContext) {
  const args = [...argv];
  const source = { config: takeOption(args, "config"), model: takeOption(args, "model") };
  const [command, ...rest] = args;
  if (command === undefined || command === "help" || args.includes("--help") || args.includes("-h")) {
    context.print(usage);
    return;
  }
  const notCommand = () => new Error(`bizdata ${args.join(" ")}: not a command\n${usage}`);
  if (command === "serve") {
    if (rest.length > 0) throw notCommand();
    return startHost(loadConfig(context.env), await loadBizdataConfig(source, context.cwd));
  }
  const run = commandOf(command, rest, context);
  if (run === undefined) throw notCommand();
  const app = await loadBizdataConfig(source, context.cwd);
  const config = loadConfig(context.env);
  const dbOptions = {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    ...config.postgres,
    changeLog: config.changeLog.enabled,
  };
  const db = context.database ?? (await openDatabase(dbOptions));
  try {
    // `migrate` runs it itself, with its options
    if (command !== "migrate") await migrateService(db, app.model);
    await run(db, app);
    if (command === "migrate") context.print(`schema is up to date in ${describeDatabase(dbOptions)}`);
  } finally {
    if (context.database === undefined) await db.close();
  }
}
