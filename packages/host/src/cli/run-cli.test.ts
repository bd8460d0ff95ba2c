import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUser, tenantFeatures } from "../tenants/tenant-admin.js";
import { type CliContext, runCli, usage } from "./run-cli.js";

// an application outside the workspace, as a team would write it: plain JavaScript modules
const core = pathToFileURL(join(import.meta.dirname, "../../../core/src/index.ts")).href;
const dir = mkdtempSync(join(tmpdir(), "bizdata-cli-"));
const empty = mkdtempSync(join(tmpdir(), "bizdata-cli-empty-"));
writeFileSync(
  join(dir, "model.mjs"),
  `import { defineModel, entity, text } from ${JSON.stringify(core)};
   export const model = defineModel([entity("CliGadget", { naturalKey: "Code", fields: { Code: text({ required: true }) } })]);`,
);
writeFileSync(
  join(dir, "bizdata.config.js"),
  `import { model } from "./model.mjs";
   export default {
     model,
     async seed(admin, args) {
       await admin.createTenant(args[0]);
       await admin.bulkInsert(args[0], [{ entity: "CliGadget", records: [{ Guid: crypto.randomUUID(), Code: "G-1" }] }]);
     },
   };`,
);
writeFileSync(join(dir, "nothing.mjs"), "export const answer = 42;");
// TypeScript (import-module.ts): a project of ES modules with a bizdata.config.ts and nothing else to
// find; and a .ts model where no package.json says "type": "module" (`dir` has none)
const typed = mkdtempSync(join(tmpdir(), "bizdata-cli-ts-"));
writeFileSync(join(typed, "package.json"), JSON.stringify({ type: "module" }));
writeFileSync(
  join(typed, "bizdata.config.ts"),
  `import { defineModel, entity, text, type Model } from ${JSON.stringify(core)};
   interface Config { readonly model: Model }
   const config: Config = { model: defineModel([entity("CliTyped", { naturalKey: "Code", fields: { Code: text() } })]) };
   export default config;`,
);
writeFileSync(join(dir, "model.ts"), "export const model: unknown = undefined;");

let output: string[];
let context: CliContext;
const cli = (...argv: string[]) => runCli(argv, context);

beforeAll(async () => {
  context = {
    env: { LOG_LEVEL: "silent" },
    cwd: dir,
    print: (line) => output.push(line),
    database: await testDatabase(),
  };
});

afterAll(() => {
  for (const folder of [dir, empty, typed]) rmSync(folder, { recursive: true, force: true });
});

describe("bizdata CLI", () => {
  it("migrates the model of --model, and administers tenants, users and features", async () => {
    output = [];
    const tenant = uniqueTenant("cli");
    await cli("migrate", "--model", "./model.mjs");
    await cli("tenant", "create", tenant, "--name", "CLI Ltd", "--model=model.mjs");
    await cli("tenant", "create", tenant, "--model", "model.mjs");
    await cli("user", "create", tenant, "alice", "--password", "s3cret!", "--role", "reader", "--model", "model.mjs");
    await cli("feature", "enable", tenant, "Gadgets", "--model", "model.mjs");
    await cli("feature", "list", tenant, "--model", "model.mjs");
    expect(output).toEqual([
      expect.stringMatching(/^schema is up to date in (PGlite|PostgreSQL)/),
      `tenant ${tenant} created`,
      `tenant ${tenant} already exists`,
      `user alice in tenant ${tenant} saved with role reader`,
      `feature Gadgets enabled for tenant ${tenant}`,
      "Gadgets",
    ]);
    expect((await findUser(context.database!, tenant, "alice"))?.roles).toEqual(["reader"]);
    expect(await tenantFeatures(context.database!, tenant)).toEqual(["Gadgets"]);
  });

  it("reads bizdata.config.js from the working directory and runs its seed with the arguments after seed", async () => {
    output = [];
    const tenant = uniqueTenant("cli-seed");
    await cli("seed", tenant);
    expect(output).toEqual([expect.stringMatching(/^done in \d+\.\d s$/)]);
    const [row] = await context.database!.query<{ n: number }>({
      sql: "SELECT count(*)::int AS n FROM cli_gadget WHERE tenant_id = $1",
      params: [tenant],
    });
    expect(row?.n).toBe(1);
  });

  it("reads bizdata.config.ts from the working directory", async () => {
    output = [];
    await runCli(["migrate"], { ...context, cwd: typed });
    expect(output).toEqual([expect.stringMatching(/^schema is up to date in /)]);
    const [row] = await context.database!.query<{ n: number }>({
      sql: "SELECT count(*)::int AS n FROM cli_typed",
      params: [],
    });
    expect(row?.n).toBe(0);
  });

  it("prints its usage for --help and no command", async () => {
    output = [];
    await cli("--help");
    await cli();
    expect(output).toEqual([usage, usage]);
  });

  it("creates a user with a role that ROLES defines", async () => {
    const tenant = `roles-${Date.now()}`;
    const roles = JSON.stringify({ admin: { read: "*" }, clerk: { read: "*", create: ["SalesOrder"] } });
    const withRoles = { ...context, env: { ...context.env, ROLES: roles } };
    await runCli(["tenant", "create", tenant, "--model", "model.mjs"], withRoles);
    await runCli(
      ["user", "create", tenant, "carol", "--password", "s3cret!", "--role", "clerk", "--model", "model.mjs"],
      withRoles,
    );
    expect((await findUser(context.database!, tenant, "carol"))?.roles).toEqual(["clerk"]);
    await expect(
      runCli(
        ["user", "create", tenant, "dan", "--password", "p", "--role", "reader", "--model", "model.mjs"],
        withRoles,
      ),
    ).rejects.toThrow('--role must be one of admin, clerk (ROLES), not "reader".');
  });

  it.each([
    [["frobnicate"], "bizdata frobnicate: not a command"],
    [["tenant", "delete", "x"], "bizdata tenant delete x: not a command"],
    [["serve", "now"], "bizdata serve now: not a command"],
    [["user", "create", "t", "bob", "--role", "admin"], "Give the password with --password or BIZDATA_PASSWORD."],
    [
      ["user", "create", "t", "bob", "--password", "p", "--role", "boss"],
      '--role must be one of admin, reader (ROLES), not "boss".',
    ],
    [
      ["migrate", "--config", "bizdata.config.js", "--model", "model.mjs"],
      "Give either --config or --model, not both.",
    ],
    [["migrate", "--model", "missing.mjs"], "--model missing.mjs: there is no such file"],
    [["migrate", "--model", "nothing.mjs"], "--model nothing.mjs exports no model"],
    [["seed", "--model", "model.mjs"], "The config has no seed"],
    [["migrate", "--config"], "--config needs a value."],
    [["migrate", "--convert", "--model", "model.mjs"], "bizdata migrate --convert: not a command"],
  ])("refuses %j", async (argv, message) => {
    await expect(cli(...argv)).rejects.toThrow(message);
  });

  // Only a runtime without type stripping (Node 20) goes through tsx, which would compile the file
  // to CommonJS: there the file is refused with the fix. Node 24 strips the types itself and takes
  // a file with `export` as an ES module, so it loads (and this one exports no model).
  const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);
  it(`${stripsTypes ? "loads" : "refuses"} a .ts model where no package.json says "type": "module"`, async () => {
    await expect(cli("migrate", "--model", "model.ts")).rejects.toThrow(
      stripsTypes
        ? "--model model.ts exports no model"
        : '--model model.ts: a TypeScript model or config is an ES module: add "type": "module" to the package.json of its project, or name the file .mts.',
    );
  });

  it("migrate gives tenant columns of an earlier version their byte order: a large table's when asked, after saying so", async () => {
    const db = context.database!;
    await cli("migrate", "--model", "model.mjs");
    // a table the planner counts as large, with its tenant column as a version before made it
    const bulk = uniqueTenant("cli-bulk");
    await db.query({
      sql: "INSERT INTO cli_gadget (tenant_id, guid, code) SELECT $1, gen_random_uuid(), 'bulk-' || g FROM generate_series(1, 100000) g",
      params: [bulk],
    });
    await db.query({ sql: "ANALYZE cli_gadget", params: [] });
    const asBefore = async () => {
      await db.query({ sql: "DROP POLICY cli_gadget_tenant ON cli_gadget", params: [] });
      await db.query({ sql: 'ALTER TABLE cli_gadget ALTER COLUMN tenant_id TYPE text COLLATE "default"', params: [] });
    };
    try {
      await asBefore();
      output = [];
      await cli("migrate", "--model", "model.mjs");
      expect(output).toEqual([
        "1 large table keeps its tenant column in the database's collation (cli_gadget), which costs PostgreSQL more per statement than the byte order migrate gives new tables. Converting rebuilds a table's indexes under an exclusive lock: run `bizdata migrate --convert-large-tables` at a quiet hour.",
        expect.stringMatching(/^schema is up to date in /),
      ]);
      output = [];
      await cli("migrate", "--convert-large-tables", "--model", "model.mjs");
      expect(output).toEqual([
        "tenant columns byte-ordered in cli_gadget",
        expect.stringMatching(/^schema is up to date in /),
      ]);
      output = [];
      await cli("migrate", "--model", "model.mjs");
      expect(output).toEqual([expect.stringMatching(/^schema is up to date in /)]);
    } finally {
      // as the other tests expect it, whatever happened above
      await db.query({ sql: "DELETE FROM cli_gadget WHERE tenant_id = $1", params: [bulk] });
      await cli("migrate", "--convert-large-tables", "--model", "model.mjs");
    }
  });

  it("migrate says which tenant column a view of your own keeps from converting, and goes on", async () => {
    const db = context.database!;
    await cli("migrate", "--model", "model.mjs");
    await db.query({ sql: "DROP POLICY cli_gadget_tenant ON cli_gadget", params: [] });
    await db.query({ sql: 'ALTER TABLE cli_gadget ALTER COLUMN tenant_id TYPE text COLLATE "default"', params: [] });
    await db.query({ sql: "CREATE VIEW cli_gadget_codes AS SELECT tenant_id, code FROM cli_gadget", params: [] });
    try {
      output = [];
      await cli("migrate", "--model", "model.mjs");
      expect(output).toEqual([
        "cli_gadget keeps its tenant column in the database's collation, since view cli_gadget_codes of your own uses it: drop it, run `bizdata migrate`, and make it again.",
        expect.stringMatching(/^schema is up to date in /),
      ]);
    } finally {
      await db.query({ sql: "DROP VIEW IF EXISTS cli_gadget_codes", params: [] });
      output = [];
      await cli("migrate", "--model", "model.mjs");
    }
    expect(output).toEqual([
      "tenant columns byte-ordered in cli_gadget",
      expect.stringMatching(/^schema is up to date in /),
    ]);
  });

  it("names what it needs when there is no model to work on", async () => {
    await expect(runCli(["migrate"], { ...context, cwd: empty })).rejects.toThrow(
      `No model to work on: give --model <module> (a module exporting \`model\`) or --config <file>, or put a bizdata.config.js in ${empty}.`,
    );
  });
});
