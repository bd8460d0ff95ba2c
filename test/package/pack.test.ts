/**
 * The packages as a team gets them (issue 11, "Done when"): build, `pnpm pack` every publishable
 * package, install the tarballs with plain npm into an empty project outside the workspace, and
 * there (a) run the embedding example of the README and the guides, (b) migrate and serve a model
 * of its own with the `bizdata` CLI against PostgreSQL and sign in, in JavaScript and in
 * TypeScript, (c) import `@bizdata/workflow/client` and check that nothing of PGlite, drizzle or
 * the server loads with it; and (d) in a project of its own with @bizdata/core and PGlite alone,
 * no PostgreSQL driver, use core; and (e) run the PostgreSQL restart tests on the installed driver.
 *
 * PostgreSQL: a fresh database created through `DATABASE_URL` (default the server on
 * 127.0.0.1:5432) and dropped afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type Database, openDatabase } from "@bizdata/core";
import { cleanEnv, npmInstall, packPackages, publishable, root, run } from "@bizdata/test-kit/packed-packages";
import { missingBinaries } from "@bizdata/test-kit/postgres-cluster";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const example = join(root, "examples/own-model");
// the restart tests start a throwaway cluster: where its binaries are missing, they skip here as in the workspace
const noCluster = await missingBinaries();
let work: string;
let project: string;
/** the packed tarballs by package name, as `file:` specifiers */
let tarballs: Record<string, string>;
const running: ChildProcess[] = [];

/** starts a server in a process group of its own and resolves with the first match of `ready` in its output */
function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<string> {
  const child = spawn(command, args, {
    cwd: project,
    env: { ...cleanEnv, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running.push(child);
  let output = "";
  return new Promise((resolvePromise, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output += `${line}\n`;
        const match = ready.exec(line);
        if (match) resolvePromise(match[1]!);
      });
    }
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code}\n${output}`)));
  });
}

/** ends a started server and everything it started (npx runs the bin in a child of its own) */
function stop(child: ChildProcess): Promise<void> {
  running.splice(running.indexOf(child), 1);
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolvePromise) => child.once("exit", () => resolvePromise()));
  process.kill(-child.pid, "SIGTERM");
  return exited;
}

async function signIn(base: string, tenant: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: tenant, Username: username, Password: password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** a JSON request with a bearer token; resolves with status and parsed body */
async function call(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as any) };
}

/** writes a file with a resolve hook that appends every module URL an import loads to `log`; returns its name */
function recordImports(dir: string, log: string): string {
  writeFileSync(
    join(dir, "record-imports.mjs"),
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\\\n");
  return result;
}\`));`,
  );
  return "./record-imports.mjs";
}

/** writes a supplier and a part (the supplier by natural key) and reads the part back with its supplier */
async function roundTrip(base: string, token: string) {
  expect((await call(base, token, "POST", "/api/Supplier", { Code: "ACME", Name: "Acme Parts" })).status).toBe(201);
  const part = await call(base, token, "POST", "/api/Part", { PartNo: "P-1", Supplier: "ACME", Price: 12.5 });
  expect(part.status).toBe(201);
  const read = await call(base, token, "GET", "/api/Part?$select=PartNo,Price&$expand=Supplier($select=Name)");
  expect(read).toEqual({
    status: 200,
    body: {
      "@odata.context": "/api/$metadata#Part(PartNo,Price,Supplier(Name))",
      value: [
        {
          "@odata.etag": 'W/"1"',
          Guid: part.body.Guid,
          PartNo: "P-1",
          Price: 12.5,
          Supplier: { "@odata.etag": 'W/"1"', Guid: expect.any(String), Name: "Acme Parts" },
        },
      ],
    },
  });
}

/**
 * A model in TypeScript (annotations, an interface, a type-only import: what type stripping
 * erases), with a save hook that throws core's own error: the host answers it with its 400 only
 * when the model and the host share one @bizdata/core, not a second copy loaded for the .ts file.
 */
const TYPED_MODEL = `import { applicationError, defineModel, entity, integer, type Model, type SaveHook, text } from "@bizdata/core";

interface Stock { readonly most: number }
const stock: Stock = { most: 1000 };

const keepReserved: SaveHook<Record<string, unknown>> = {
  name: "keep-reserved",
  run: ({ record }) => {
    if (record.Code === "RESERVED") throw applicationError("ReservedCode", "RESERVED is kept for the warehouse.", "Code");
  },
};

export const Gadget = entity("Gadget", {
  naturalKey: "Code",
  fields: { Code: text({ required: true, maxLength: 16 }), Quantity: integer({ min: 0, max: stock.most }) },
  hooks: { save: [keepReserved] },
});

export const model: Model = defineModel([Gadget]);
`;

/** the config in TypeScript, importing the model by its .ts name as both Node and tsx take it */
const TYPED_CONFIG = `import { type BizdataConfig, defineConfig } from "@bizdata/host";
import { model } from "./typed-model.ts";

const config: BizdataConfig = defineConfig({ model });
export default config;
`;

/** @bizdata/core on its own: a model migrated, a record written and read on in-memory PGlite */
const CORE_ONLY = `import { createRecord, defineModel, entity, inTenant, integer, loadRecords, migrate, openDatabase, PromptCollector, text } from "@bizdata/core";

const Item = entity("Item", { naturalKey: "Code", fields: { Code: text({ required: true }), Quantity: integer({ min: 0 }) } });
const model = defineModel([Item]);
const db = await openDatabase({ url: "memory://" });
await migrate(db, model);
const context = (session) => ({ session, model, tenant: { id: "acme", features: new Set() }, prompts: new PromptCollector() });
const write = (body) => inTenant(db, "acme", (session) => createRecord(context(session), Item, body));
const guid = await write({ Code: "I-1", Quantity: 3 });
const refused = await write({ Code: "I-2", Quantity: -1 }).then(() => "stored", (err) => err.message);
const [stored] = await inTenant(db, "acme", (session) => loadRecords(session, Item, "acme", [guid]));
await db.close();
const postgres = await openDatabase({ url: "postgres://nobody@127.0.0.1:1/none" }).then(() => "opened", (err) => err.message);
console.log(JSON.stringify({ stored: { Code: stored.Code, Quantity: stored.Quantity }, refused, postgres }));
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bizdata-pack-"));
  project = join(work, "project");
  tarballs = await packPackages(join(work, "tarballs"));
  await npmInstall(project, tarballs, { ...tarballs, "@hono/node-server": "^2.1.8" });
  for (const file of ["model.js", "server.js"]) copyFileSync(join(example, file), join(project, file));
});

// every server ends with its test (the embedded one holds an in-memory database)
afterEach(() => Promise.all([...running].map(stop)));

afterAll(async () => {
  await Promise.all([...running].map(stop));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("the packed packages, installed with npm outside the workspace", () => {
  it("ship built JavaScript only, with the bizdata bin on a node shebang", () => {
    const host = join(project, "node_modules/@bizdata/host");
    expect(existsSync(join(host, "src"))).toBe(false);
    expect(readFileSync(join(host, "dist/cli.js"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    const manifest = JSON.parse(readFileSync(join(host, "package.json"), "utf8"));
    expect(manifest.bin).toEqual({ bizdata: "./dist/cli.js" });
    expect(manifest.dependencies["@bizdata/core"]).toBe("0.1.0");
  });

  it("ship each package's README, the page the registry shows", () => {
    for (const { name, dir } of publishable) {
      const installed = readFileSync(join(project, "node_modules", name, "README.md"), "utf8");
      expect(installed).toBe(readFileSync(join(dir, "README.md"), "utf8"));
      expect(installed.split("\n")[0]).toBe(`# ${name}`);
    }
  });

  it("(a) run the guides' embedding example: a model of its own on PGlite, served by @hono/node-server", async () => {
    // the files run here are the ones the README and the guides show, verbatim
    const shown = { "model.js": ["README.md", "docs/guide/own-model.md"], "server.js": ["docs/guide/embedding.md"] };
    for (const [file, pages] of Object.entries(shown)) {
      const text = readFileSync(join(example, file), "utf8");
      for (const page of pages) expect(readFileSync(join(root, page), "utf8"), `${page} shows ${file}`).toContain(text);
    }
    const base = await start("node", ["server.js"], { PORT: "0", LOG_LEVEL: "silent" }, /listening on (http:\S+)/);
    await roundTrip(base, await signIn(base, "acme", "alice", "s3cret!"));
    // the OpenAPI document of this model, and the docs page's files from the installed swagger-ui-dist
    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/Supplier", "/Part({Guid})"]));
    expect(Object.keys(doc.paths)).not.toContain("/Product");
    const bundle = await fetch(`${base}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  describe("(b) with PostgreSQL", () => {
    let admin: Database;
    let databaseUrl: string;
    const name = `bizdata_pack_${process.pid}_${Date.now()}`;
    beforeAll(async () => {
      const server = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
      admin = await openDatabase({ url: server, max: 1 });
      await admin.query({ sql: `CREATE DATABASE ${name}`, params: [] });
      const url = new URL(server);
      url.pathname = `/${name}`;
      databaseUrl = url.href;
    });
    afterAll(async () => {
      await admin.query({ sql: `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, params: [] });
      await admin.close();
    });

    it("migrates and serves the model with npx bizdata, creates a tenant and a user, and signs in", async () => {
      const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "info" };
      const bizdata = (...args: string[]) => run("npx", ["bizdata", ...args, "--model", "./model.js"], project, env);
      expect((await bizdata("migrate")).stdout).toContain(`schema is up to date in PostgreSQL at`);
      expect((await bizdata("tenant", "create", "acme", "--name", "Acme Ltd")).stdout).toContain("tenant acme created");
      expect((await bizdata("user", "create", "acme", "alice", "--password", "s3cret!")).stdout).toContain(
        "user alice in tenant acme saved with role admin",
      );
      const base = await start(
        "npx",
        ["bizdata", "serve", "--model", "./model.js"],
        { ...env, PORT: "0", WEB_APP: "on" },
        /"url":"(http:[^"]+)"/,
      );
      const token = await signIn(base, "acme", "alice", "s3cret!");
      await roundTrip(base, token);
      // this model, not the sample domain
      expect((await call(base, token, "GET", "/api/Product")).status).toBe(404);
      // the web app, built into the installed @bizdata/web, with the caller's rights it reads
      const page = await fetch(`${base}/app/`);
      expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      const scripts = [...(await page.text()).matchAll(/src="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
      expect(scripts).toHaveLength(1);
      const script = await fetch(`${base}/app/${scripts[0]}`);
      expect([script.status, (await script.text()).length > 10_000]).toEqual([200, true]);
      expect(await (await fetch(`${base}/app/config.json`)).json()).toEqual({ service: "/api" });
      expect((await call(base, token, "GET", "/api/auth/me")).body).toMatchObject({
        tenant: "acme",
        user: "alice",
        entities: { Part: ["read", "create", "update", "delete"] },
      });
    });

    it("loads a TypeScript model: migrate --model model.ts, --config bizdata.config.ts, and bizdata.config.ts found by serve", async () => {
      writeFileSync(join(project, "typed-model.ts"), TYPED_MODEL);
      writeFileSync(join(project, "bizdata.config.ts"), TYPED_CONFIG);
      try {
        const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: "info" };
        const bizdata = (...args: string[]) => run("npx", ["bizdata", ...args], project, env);
        expect((await bizdata("migrate", "--model", "./typed-model.ts")).stdout).toContain("schema is up to date in");
        expect((await bizdata("tenant", "create", "typed", "--config", "./bizdata.config.ts")).stdout).toContain(
          "tenant typed created",
        );
        // neither option: the working directory's bizdata.config.ts
        expect((await bizdata("user", "create", "typed", "bob", "--password", "s3cret!")).stdout).toContain(
          "user bob in tenant typed saved with role admin",
        );
        const base = await start("npx", ["bizdata", "serve"], { ...env, PORT: "0" }, /"url":"(http:[^"]+)"/);
        const token = await signIn(base, "typed", "bob", "s3cret!");
        const created = await call(base, token, "POST", "/api/Gadget", { Code: "G-1", Quantity: 3 });
        expect(created.status).toBe(201);
        expect(await call(base, token, "GET", "/api/Gadget?$select=Code,Quantity")).toEqual({
          status: 200,
          body: {
            "@odata.context": "/api/$metadata#Gadget(Code,Quantity)",
            value: [{ "@odata.etag": 'W/"1"', Guid: created.body.Guid, Code: "G-1", Quantity: 3 }],
          },
        });
        const tooFew = await call(base, token, "POST", "/api/Gadget", { Code: "G-2", Quantity: -1 });
        expect([tooFew.status, tooFew.body.error.details[0]]).toEqual([
          400,
          expect.objectContaining({ target: "Quantity" }),
        ]);
        const reserved = await call(base, token, "POST", "/api/Gadget", { Code: "RESERVED", Quantity: 1 });
        expect([reserved.status, reserved.body.error]).toEqual([
          400,
          expect.objectContaining({ code: "ReservedCode" }),
        ]);
        expect((await call(base, token, "GET", "/api/Gadget?$select=Code")).body.value).toEqual([
          expect.objectContaining({ Code: "G-1" }),
        ]);
      } finally {
        // the other tests find no config in the project
        for (const file of ["typed-model.ts", "bizdata.config.ts"]) rmSync(join(project, file));
      }
    });
  });

  it("(c) import @bizdata/workflow/client without loading PGlite, drizzle or any server code", async () => {
    const log = join(work, "imports.log");
    const { stdout } = await run(
      "node",
      [
        "--import",
        recordImports(project, log),
        "--input-type=module",
        "-e",
        'const { WorkflowClient, questions } = await import("@bizdata/workflow/client"); console.log(typeof WorkflowClient, typeof questions);',
      ],
      project,
    );
    expect(stdout.trim()).toBe("function function");
    const loaded = readFileSync(log, "utf8").trim().split("\n");
    expect(loaded.some((url) => url.endsWith("/node_modules/@bizdata/workflow/dist/client/index.js"))).toBe(true);
    // nothing but the client's own files: no @bizdata/core, no drizzle-orm, no PGlite, not even node: built-ins
    expect(loaded.filter((url) => !url.includes("/node_modules/@bizdata/workflow/dist/client/"))).toEqual([]);
  });

  describe("(d) @bizdata/core with PGlite alone, no PostgreSQL driver", () => {
    let alone: string;
    beforeAll(async () => {
      alone = join(work, "core-only");
      const core = { "@bizdata/core": tarballs["@bizdata/core"]! };
      await npmInstall(alone, core, { ...core, "@electric-sql/pglite": "^0.5.16" });
      writeFileSync(join(alone, "core-only.js"), CORE_ONLY);
    });

    it("has no PostgreSQL driver installed, and importing core loads neither driver", async () => {
      expect(existsSync(join(alone, "node_modules/@bizdata/core/dist/index.js"))).toBe(true);
      expect(existsSync(join(alone, "node_modules/@electric-sql/pglite"))).toBe(true);
      expect(existsSync(join(alone, "node_modules/@bizdata/postgres"))).toBe(false);
      expect(existsSync(join(alone, "node_modules/postgres"))).toBe(false);
      const log = join(work, "core-imports.log");
      const { stdout } = await run(
        "node",
        [
          "--import",
          recordImports(alone, log),
          "--input-type=module",
          "-e",
          'const core = await import("@bizdata/core"); console.log(typeof core.openDatabase, typeof core.RAISE_MALLOC_THRESHOLDS);',
        ],
        alone,
      );
      expect(stdout.trim()).toBe("function object");
      const loaded = readFileSync(log, "utf8").trim().split("\n");
      expect(loaded).toContainEqual(expect.stringMatching(/\/node_modules\/@bizdata\/core\/dist\/index\.js$/));
      // neither driver package nor core's modules that import them (postgres-options.js is plain settings)
      const drivers =
        /\/node_modules\/(@bizdata\/postgres|postgres|@electric-sql\/pglite)\/|\/(pglite|postgres)-database\.js$/;
      expect(loaded.filter((url) => drivers.test(url))).toEqual([]);
      expect(loaded).toContainEqual(expect.stringMatching(/\/@bizdata\/core\/dist\/storage\/open-database\.js$/));
    });

    it("migrates a model and writes and reads a record on PGlite; PostgreSQL asks for its package", async () => {
      const { stdout } = await run("node", ["core-only.js"], alone);
      expect(JSON.parse(stdout)).toEqual({
        stored: { Code: "I-1", Quantity: 3 },
        refused: expect.stringContaining("Quantity"),
        postgres: expect.stringContaining(
          "needs the package @bizdata/postgres, which is not installed: npm install @bizdata/postgres",
        ),
      });
    });
  });

  it.skipIf(noCluster !== undefined)(
    "(e) pass the PostgreSQL restart tests on the installed driver and core",
    { timeout: 300_000 },
    async () => {
      // the workspace's test file as it is, in the project: what it imports resolves to the installed
      // packages, but for the throwaway cluster's helper, the workspace's own (private, never packed)
      const tests = join(project, "restart");
      mkdirSync(tests);
      copyFileSync(join(root, "packages/core/src/storage/postgres-restart.test.ts"), join(tests, "restart.test.ts"));
      const config = {
        resolve: {
          alias: { "@bizdata/test-kit/postgres-cluster": join(root, "packages/test-kit/src/postgres-cluster.ts") },
        },
        test: { include: ["restart.test.ts"], testTimeout: 30_000, hookTimeout: 60_000 },
      };
      writeFileSync(join(tests, "vitest.config.mjs"), `export default ${JSON.stringify(config)};`);
      const resolved = await run(
        "node",
        [
          "--input-type=module",
          "-e",
          'for (const name of ["@bizdata/postgres", "@bizdata/core/postgres"]) console.log(import.meta.resolve(name));',
        ],
        tests,
      );
      expect(resolved.stdout.trim().split("\n")).toEqual([
        `file://${project}/node_modules/@bizdata/postgres/src/index.js`,
        `file://${project}/node_modules/@bizdata/core/dist/postgres.js`,
      ]);
      // an unhandled error (the plain driver's throw from a timer) fails the run as a failed test does
      const vitest = join(root, "node_modules/vitest/vitest.mjs");
      await run(
        "node",
        [vitest, "run", "--config", "vitest.config.mjs", "--reporter=json", "--outputFile=report.json"],
        tests,
      );
      const report = JSON.parse(readFileSync(join(tests, "report.json"), "utf8")) as {
        numTotalTests: number;
        numPassedTests: number;
      };
      expect(report.numTotalTests).toBeGreaterThan(10);
      expect(report.numPassedTests).toBe(report.numTotalTests);
    },
  );
});
