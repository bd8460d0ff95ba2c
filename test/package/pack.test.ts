/**
 * The packages as a team gets them (issue 11, "Done when"): build, `pnpm pack` every publishable
 * package, install the tarballs with plain npm into an empty project outside the workspace, and
 * there (a) run the embedding example of the README and the guides, (b) migrate and serve a model
 * of its own with the `bizdata` CLI against PostgreSQL and sign in, (c) import
 * `@bizdata/workflow/client` and check that nothing of PGlite, drizzle or the server loads with it.
 *
 * PostgreSQL: a fresh database created through `DATABASE_URL` (default the server on
 * 127.0.0.1:5432) and dropped afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { type Database, openDatabase } from "@bizdata/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const example = join(root, "examples/own-model");
let work: string;
let project: string;
const PNPM = ["-y", "pnpm@10.34.8"];

// npm and pnpm pass their settings to children as npm_* variables; the project's npm gets none of them
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

interface Output {
  readonly stdout: string;
  readonly stderr: string;
}

/** runs a command to its end; rejects with its output when it fails */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Output> {
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

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
}

const publishable = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir: join(root, "packages", dir) }))
  .map(({ dir }) => ({ dir, ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest) }))
  .filter((p) => p.private !== true);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bizdata-pack-"));
  project = join(work, "project");
  // a clean build: files of moved or deleted sources must not linger in dist/ and get packed
  for (const { dir } of publishable) {
    rmSync(join(dir, "dist"), { recursive: true, force: true });
    rmSync(join(dir, "tsconfig.tsbuildinfo"), { force: true });
  }
  const filters = publishable.flatMap(({ name }) => ["--filter", name]);
  await run("npx", [...PNPM, "-r", ...filters, "build"], root);
  // pnpm pack writes workspace:* as the version it stands for
  const tarballs = join(work, "tarballs");
  await run("npx", [...PNPM, "-r", ...filters, "pack", "--pack-destination", tarballs], root);
  const files = Object.fromEntries(
    publishable.map(({ name, version }) => [
      name,
      `file:${join(tarballs, `${name.replace("@", "").replace("/", "-")}-${version}.tgz`)}`,
    ]),
  );
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "bizdata-pack-test",
      private: true,
      type: "module",
      dependencies: { ...files, "@hono/node-server": "^2.1.8" },
      // the packages' own dependencies on each other go to the tarballs too, never to a registry
      overrides: files,
    }),
  );
  for (const file of ["model.js", "server.js"]) copyFileSync(join(example, file), join(project, file));
  // swagger-ui-dist (the docs page) depends on @scarf/scarf, whose install script reports the
  // install unless told not to
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], project, {
    SCARF_ANALYTICS: "false",
  });
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
    expect(Object.keys(manifest.dependencies)).not.toContain("tsx");
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
        { ...env, PORT: "0" },
        /"url":"(http:[^"]+)"/,
      );
      const token = await signIn(base, "acme", "alice", "s3cret!");
      await roundTrip(base, token);
      // this model, not the sample domain
      expect((await call(base, token, "GET", "/api/Product")).status).toBe(404);
    });
  });

  it("(c) import @bizdata/workflow/client without loading PGlite, drizzle or any server code", async () => {
    const log = join(work, "imports.log");
    // a resolve hook that writes down every module the import loads
    writeFileSync(
      join(project, "record-imports.mjs"),
      `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\\\n");
  return result;
}\`));`,
    );
    const { stdout } = await run(
      "node",
      [
        "--import",
        "./record-imports.mjs",
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
});
