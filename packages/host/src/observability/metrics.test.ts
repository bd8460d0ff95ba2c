import { randomBytes } from "node:crypto";
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, caller, config, fromPeer, PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";

/** an app of its own, so its registry counts only this file's requests */
async function ownApp(settings: Partial<Parameters<typeof createApp>[0]["config"]> = {}): Promise<App> {
  const db = await testDatabase();
  return createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config: { ...config, ...settings } });
}

const scrape = async (app: App) => {
  const res = await app.request("/metrics");
  expect(res.status).toBe(200);
  return res.text();
};

let app: App;
let admin: Caller;

beforeAll(async () => {
  // first: it migrates the shared database
  const { admin: signedIn } = await signedInTenant("metrics");
  app = await ownApp();
  admin = caller(app, signedIn.tenantId, await signIn(app, signedIn.tenantId, "admin"));
  expect((await admin.request("POST", "/api/Product", { SKU: "M-1", Price: 1 })).status).toBe(201);
});

describe("GET /metrics", () => {
  it("counts requests by route pattern, method and status, with latency and statements per request", async () => {
    const labels = { route: "/api/{entity}", method: "GET", status: "200" };
    const before = await scrape(app);
    for (let i = 0; i < 3; i++) expect((await admin.request("GET", "/api/Product?$top=1")).status).toBe(200);
    const after = await scrape(app);
    const moved = (name: string, l: Record<string, string>) => sample(after, name, l) - sample(before, name, l);
    expect(moved("bizdata_http_requests_total", labels)).toBe(3);
    expect(moved("bizdata_http_request_duration_seconds_count", labels)).toBe(3);
    expect(moved("bizdata_http_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
    expect(moved("bizdata_http_request_statements_count", { route: "/api/{entity}" })).toBe(3);
    // a read runs at least its query (and the tenant transaction's set-up)
    expect(moved("bizdata_http_request_statements_sum", { route: "/api/{entity}" })).toBeGreaterThanOrEqual(3);
    expect(moved("bizdata_http_request_statements_bucket", { route: "/api/{entity}", le: "0" })).toBe(0);
  });

  it("labels routes by pattern, never by key or raw URL", async () => {
    const created = (await (await admin.request("POST", "/api/Product", { SKU: "M-2" })).json()) as { Guid: string };
    const requests: [string, string, string][] = [
      ["GET", `/api/Product(${created.Guid})`, "/api/{entity}({key})"],
      ["GET", "/api/Product/$count", "/api/{entity}/$count"],
      // the query string is no part of the shape
      ["GET", `/api/Product(${created.Guid})/Uoms?$top=1&$select=Name`, "/api/{entity}({key})/{segment}"],
      ["GET", "/api/NoSuchEntity", "/api/{entity}"],
      ["GET", "/api/Product(", "/api/{invalid}"],
      ["GET", `/api/workflow/${created.Guid}`, "/api/workflow/{id}"],
      ["GET", "/api/$metadata", "/api/$metadata"],
      ["GET", "/nowhere/at/all", "unmatched"],
      ["POST", "/api/$batch", "/api/$batch"],
    ];
    for (const [method, path] of requests)
      await admin.request(method, path, method === "POST" ? { requests: [] } : undefined);
    const text = await scrape(app);
    for (const [method, , route] of requests) {
      expect(sample(text, "bizdata_http_requests_total", { route, method }), route).toBeGreaterThan(0);
    }
    expect(text).not.toContain(created.Guid);
    expect(text).not.toContain("NoSuchEntity");
    expect(text).not.toContain("$top");
    expect(text).not.toContain("/nowhere");
  });

  it("counts a $batch as one request whose statements include its parts'", async () => {
    const labels = { route: "/api/$batch", method: "POST", status: "200" };
    const before = await scrape(app);
    const parts = [1, 2, 3].map((i) => ({ id: String(i), method: "GET", url: "/api/Product?$top=1" }));
    expect((await admin.request("POST", "/api/$batch", { requests: parts })).status).toBe(200);
    const after = await scrape(app);
    expect(
      sample(after, "bizdata_http_requests_total", labels) - sample(before, "bizdata_http_requests_total", labels),
    ).toBe(1);
    // the parts are not requests of their own
    const reads = { route: "/api/{entity}", method: "GET" };
    expect(sample(after, "bizdata_http_requests_total", reads)).toBe(
      sample(before, "bizdata_http_requests_total", reads),
    );
    const statements = (t: string) => sample(t, "bizdata_http_request_statements_sum", { route: "/api/$batch" });
    expect(statements(after) - statements(before)).toBeGreaterThanOrEqual(3);
  });

  it("counts workflow steps and commits by outcome", async () => {
    const count = (t: string, name: string, outcome: string) => sample(t, name, { outcome });
    const before = await scrape(app);
    const workflowId = ((await (await admin.request("POST", "/api/workflow")).json()) as { workflowId: string })
      .workflowId;
    const step = (method: string, path: string, index: number, body?: unknown) =>
      admin.request(method, path, body, { "Workflow-Id": workflowId, "Workflow-Index": String(index) });
    expect((await step("GET", "/api/Product?$top=1", 1)).status).toBe(200);
    expect((await step("GET", "/api/Product?$top=1", 1)).status).toBe(409);
    expect((await step("GET", "/api/NoSuchEntity", 2)).status).toBe(404);
    expect((await step("POST", "/api/workflow/commit", 2)).status).toBe(200);
    const after = await scrape(app);
    const moved = (name: string, outcome: string) => count(after, name, outcome) - count(before, name, outcome);
    expect(moved("bizdata_workflow_steps_total", "advanced")).toBe(2);
    expect(moved("bizdata_workflow_steps_total", "indexConflict")).toBe(1);
    expect(moved("bizdata_workflow_steps_total", "failed")).toBe(1);
    expect(moved("bizdata_workflow_commits_total", "committed")).toBe(1);
  });

  it("counts sign-ins by outcome, throttled ones included", async () => {
    const { admin: own } = await signedInTenant("metrics-signin");
    // a block that outlasts the test: the pair (account, address) is blocked after 5 failures
    const peer = `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
    const app = await ownApp({ signInThrottle: loadConfig({ SIGNIN_THROTTLE_FIRST_DELAY_S: "600" }).signInThrottle });
    const attempt = (password: string) =>
      app.request(
        "/api/auth/signin",
        {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ TenantId: own.tenantId, Username: "admin", Password: password }),
        },
        // an address of its own each run: an address's count lasts a day on one PostgreSQL database
        fromPeer(peer),
      );
    const before = await scrape(app);
    expect((await attempt(PASSWORD)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await attempt("wrong")).status).toBe(401);
    expect((await attempt(PASSWORD)).status).toBe(429);
    const after = await scrape(app);
    const moved = (outcome: string) =>
      sample(after, "bizdata_signin_attempts_total", { outcome }) -
      sample(before, "bizdata_signin_attempts_total", { outcome });
    expect([moved("succeeded"), moved("failed"), moved("throttled")]).toEqual([1, 5, 1]);
  });

  it("reports the database pool and the process", async () => {
    const text = await scrape(app);
    const primary = { pool: "primary" };
    expect(sample(text, "bizdata_db_pool_size", primary)).toBeGreaterThanOrEqual(1);
    expect(sample(text, "bizdata_db_pool_idle", primary)).toBeLessThanOrEqual(
      sample(text, "bizdata_db_pool_size", primary),
    );
    expect(text).toContain("# TYPE bizdata_db_pool_waiting gauge");
    // without read replicas (their own test: lifecycle/read-replicas.test.ts) there is one pool
    expect(text).toMatch(/^bizdata_db_pool_size\{pool="primary"\} \d+$/m);
    expect(text).not.toContain('pool="replica');
    expect(text).not.toContain("bizdata_db_reads_total");
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
  });

  it("keeps the counts of two apps in one process apart", async () => {
    const other = await ownApp();
    const before = sample(await scrape(app), "bizdata_http_requests_total", { route: "/health" });
    expect((await other.request("/health")).status).toBe(200);
    expect(sample(await scrape(other), "bizdata_http_requests_total", { route: "/health" })).toBe(1);
    expect(sample(await scrape(app), "bizdata_http_requests_total", { route: "/health" })).toBe(before);
  });
});

describe("who may read /metrics", () => {
  it("answers this machine only when no token is set: loopback or in-process, not relayed", async () => {
    const cases: [Record<string, unknown> | undefined, Record<string, string>, number][] = [
      [undefined, {}, 200],
      [fromPeer("127.0.0.1"), {}, 200],
      [fromPeer("::1"), {}, 200],
      [fromPeer("::ffff:127.0.0.1"), {}, 200],
      [fromPeer("10.0.0.5"), {}, 404],
      [fromPeer("203.0.113.9"), {}, 404],
      [fromPeer("127.0.0.1"), { "X-Forwarded-For": "203.0.113.9" }, 404],
      [fromPeer("127.0.0.1"), { Forwarded: "for=203.0.113.9" }, 404],
    ];
    for (const [env, headers, status] of cases) {
      const res = await app.request("/metrics", { headers }, env);
      expect(res.status, `${JSON.stringify(env)} ${JSON.stringify(headers)}`).toBe(status);
    }
  });

  it("asks for the bearer token when one is set, from anywhere", async () => {
    const token = "metrics-token-0123456789";
    const guarded = await ownApp({ metrics: { enabled: true, token } });
    const cases: [string | undefined, number][] = [
      [undefined, 401],
      ["Bearer wrong-token-0123456789", 401],
      [`Basic ${token}`, 401],
      [`Bearer ${token}`, 200],
    ];
    for (const [authorization, status] of cases) {
      const res = await guarded.request(
        "/metrics",
        { headers: authorization === undefined ? {} : { Authorization: authorization } },
        fromPeer("203.0.113.9"),
      );
      expect(res.status, authorization).toBe(status);
      if (status === 401) expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer /);
      else expect(res.headers.get("Content-Type")).toMatch(/^text\/plain; version=0\.0\.4/);
    }
  });

  it("is not there when turned off, nor when an embedding app does not configure it", async () => {
    const off = await ownApp({ metrics: { enabled: false, token: undefined } });
    expect((await off.request("/metrics")).status).toBe(404);
    const db = await testDatabase();
    const { metrics: _, ...withoutMetrics } = config;
    const embedded = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config: withoutMetrics });
    expect((await embedded.request("/metrics")).status).toBe(404);
  });
});

describe("metrics configuration", () => {
  it("is on by default in the reference host's configuration, and takes a token of 16 characters or more", () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: true, token: undefined });
    expect(loadConfig({ METRICS: "false" }).metrics.enabled).toBe(false);
    expect(loadConfig({ METRICS_TOKEN: "0123456789abcdef" }).metrics.token).toBe("0123456789abcdef");
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS: "yes" })).toThrow(/METRICS=yes/);
  });
});
