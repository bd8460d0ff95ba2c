// The MCP conformance suite (@modelcontextprotocol/conformance from npm) against the reference
// host, on both revisions the host serves: the suite's server scenarios of 2025-11-25 (with the
// 2025 revisions before it) and of 2026-07-28. The suite is installed with `npm ci` from
// package-lock.json beside this file into a cache folder, once per lock; it needs Node 22 or
// later: this Node when it is one, else the one CONFORMANCE_NODE names (.ci/run passes the Node 24
// it installs from npm for its step 1b). The host runs as `pnpm start` runs it, on an in-memory
// database seeded with the demo tenants, on a free loopback port; the suite's client sends no
// token, so it reaches the host through a proxy here that adds the demo user's (every other header,
// Host and Origin among them, as the client sent it). Then each check the suite reports is
// compared with fixture-checks.json, the checks that need the suite's own test server: any other
// failure fails the run, and so does a listed check that passes. Usage:
//   node .ci/conformance/run.mjs <results folder>
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as forward } from "node:http";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const results = process.argv[2] ?? join(root, ".conformance-results");
const HOST_TIMEOUT_MS = 5 * 60_000;
const SUITE_TIMEOUT_MS = 10 * 60_000;
const RUNS = [
  ["2025", ["--suite", "all", "--spec-version", "2025-11-25"]],
  ["2026-07-28", ["--suite", "all", "--spec-version", "2026-07-28"]],
];

/** the suite, installed once per lock into the cache, and a Node 22+ to run it */
function toolchain() {
  const lock = readFileSync(join(here, "package-lock.json"));
  const stamp = createHash("sha256").update(lock).digest("hex").slice(0, 16);
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "bizdata-ci", `conformance-${stamp}`);
  if (!existsSync(join(cache, "installed"))) {
    mkdirSync(cache, { recursive: true });
    for (const file of ["package.json", "package-lock.json"]) cpSync(join(here, file), join(cache, file));
    console.log(`installing the conformance suite into ${cache}`);
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: cache, stdio: "inherit" });
    writeFileSync(join(cache, "installed"), stamp);
  }
  const node = Number(process.versions.node.split(".")[0]) >= 22 ? process.execPath : process.env.CONFORMANCE_NODE;
  if (node === undefined || !existsSync(node)) {
    throw new Error(
      `the conformance suite needs Node 22 or later: this is ${process.version}, and CONFORMANCE_NODE names none`,
    );
  }
  return { node, suite: join(cache, "node_modules/@modelcontextprotocol/conformance/dist/index.js") };
}

/** a free loopback port */
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** the reference host, as `pnpm start` runs it, on an in-memory database; resolves once it answers */
async function startHost(port) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "packages/host/src/cli.ts", "serve", "--config", "examples/src/host/reference-host.ts"],
    {
      cwd: root,
      env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: "memory://", LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + HOST_TIMEOUT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the reference host exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, stop: () => process.kill(-child.pid, "SIGTERM") };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  process.kill(-child.pid, "SIGKILL");
  throw new Error("the reference host did not answer /health within 5 minutes");
}

/** a proxy to `target` that adds `token` to every request */
function bearerProxy(target, token) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", (err) => res.writeHead(502).end(String(err)));
    req.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }),
    ),
  );
}

/** runs the suite; its exit code says only that some check failed, which compare() sorts out */
function runSuite({ node, suite }, url, args, out) {
  return new Promise((resolve) => {
    const child = spawn(node, [suite, "server", "--url", url, ...args, "-o", out], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let summary = false;
    child.stdout.on("data", (chunk) => {
      const text = String(chunk);
      summary ||= text.includes("=== SUMMARY ===");
      if (summary) process.stdout.write(text);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), SUITE_TIMEOUT_MS);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** each check of each scenario against the fixture list: the lines that fail the run, and counts */
function compare(folders) {
  const fixtures = JSON.parse(readFileSync(join(here, "fixture-checks.json"), "utf8"));
  const expected = new Set(Object.values(fixtures.checks).flat());
  const failing = new Set();
  const problems = [];
  let scenarios = 0;
  let passed = 0;
  let asExpected = 0;
  for (const folder of folders) {
    for (const entry of existsSync(folder) ? readdirSync(folder) : []) {
      // server-<scenario>-<timestamp>
      const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
      scenarios++;
      for (const check of JSON.parse(readFileSync(join(folder, entry, "checks.json"), "utf8"))) {
        const key = `${scenario}/${check.id}`;
        if (check.status === "SUCCESS") {
          passed++;
          if (expected.has(key)) problems.push(`passes now (take it out of fixture-checks.json): ${key}`);
        } else if (check.status === "FAILURE") {
          failing.add(key);
          if (expected.has(key)) asExpected++;
          else problems.push(`failed: ${key}: ${check.errorMessage ?? check.description}`);
        }
      }
    }
  }
  for (const key of expected) {
    if (!failing.has(key) && !problems.some((p) => p.endsWith(key))) problems.push(`not reported: ${key}`);
  }
  return { scenarios, passed, asExpected, problems };
}

const tools = toolchain();
const host = await startHost(await freePort());
let proxy;
try {
  const signIn = await fetch(`${host.url}/api/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: "demo", Username: "demo", Password: "demo" }),
  });
  if (!signIn.ok) throw new Error(`the demo sign-in failed: ${signIn.status} ${await signIn.text()}`);
  proxy = await bearerProxy(host.url, (await signIn.json()).access_token);
  const folders = [];
  for (const [name, args] of RUNS) {
    const out = join(results, name);
    folders.push(out);
    console.log(`--- the suite's server scenarios of ${name}`);
    await runSuite(tools, `${proxy.url}/api/mcp`, args, out);
  }
  const { scenarios, passed, asExpected, problems } = compare(folders);
  for (const problem of problems) console.error(problem);
  console.log(
    `conformance: ${scenarios} scenarios, ${passed} checks passed, ${asExpected} failed as expected (they need the suite's own test server), ${problems.length} unexpected`,
  );
  process.exitCode = scenarios > 0 && problems.length === 0 ? 0 : 1;
} finally {
  proxy?.close();
  host.stop();
}
