/**
 * Two host processes on one PostgreSQL (architecture: hosts are stateless): one workflow's steps
 * alternate between them, and two requests with the same index, one to each, race: exactly one
 * succeeds. Needs a shared PostgreSQL, so it runs in the PostgreSQL leg of CI.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const url = process.env.DATABASE_URL;
const hosts: ChildProcess[] = [];
const bases: string[] = [];

/** starts the reference host as its own process and resolves with its address */
function startHost(): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "packages/host/src/cli.ts", "serve", "--config", "examples/src/host/reference-host.ts"],
    {
      env: { ...process.env, DATABASE_URL: url, PORT: "0", LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  hosts.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const address = /"url":"(http:\/\/[^"]+)"/.exec(line)?.[1];
      if (address) resolve(address);
    });
    child.once("exit", (code) => reject(new Error(`host exited with ${code}`)));
  });
}

describe.skipIf(!url?.startsWith("postgres"))("workflows across host instances", () => {
  let token: string;
  beforeAll(async () => {
    const db = await testDatabase();
    // the tenant is made before the hosts start (and migrate): on a fresh database no other test may have migrated it
    await migrateService(db, sampleModel);
    const tenantId = uniqueTenant("instances");
    await createTenant(db, tenantId);
    await setUser(db, tenantId, "admin", "secret-secret", ["admin"]);
    bases.push(await startHost(), await startHost());
    const signIn = await fetch(`${bases[0]}/api/auth/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: tenantId, Username: "admin", Password: "secret-secret" }),
    });
    token = ((await signIn.json()) as { access_token: string }).access_token;
  }, 60_000);
  afterAll(() => {
    for (const host of hosts) host.kill("SIGTERM");
  });

  const call = (base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it("serves one workflow from both hosts, and exactly one of two same-index requests wins", async () => {
    const created = (await (await call(bases[0]!, "POST", "/api/workflow")).json()) as { workflowId: string };
    const step = (base: string, index: number, sku: string) =>
      call(
        base,
        "POST",
        "/api/Product",
        { "Workflow-Id": created.workflowId, "Workflow-Index": String(index) },
        { SKU: sku },
      );
    for (let i = 1; i <= 6; i++) {
      const res = await step(bases[i % 2]!, i, `X-${i}`);
      expect(res.status).toBe(201);
      expect(res.headers.get("Workflow-Next-Index")).toBe(String(i + 1));
    }
    for (let round = 0; round < 5; round++) {
      const index = 7 + round;
      const results = await Promise.all([step(bases[0]!, index, `A-${round}`), step(bases[1]!, index, `B-${round}`)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
      for (const r of results) expect(r.headers.get("Workflow-Next-Index")).toBe(String(index + 1));
    }
    const commit = await call(bases[1]!, "POST", "/api/workflow/commit", {
      "Workflow-Id": created.workflowId,
      "Workflow-Index": "12",
    });
    expect(commit.status).toBe(200);
    const count = await call(bases[0]!, "GET", "/api/Product/$count");
    expect(await count.text()).toBe("11");
  }, 60_000);

  it("survives a host killed between steps and during a commit: staged state intact, commit all or nothing", async () => {
    const stagingKey = `fault-${Date.now()}`;
    const prefix = `F${Date.now() % 100000}-`;
    const victim = await startHost();
    const created = (await (await call(victim, "POST", `/api/workflow?stagingKey=${stagingKey}`)).json()) as {
      workflowId: string;
    };
    const headers = (index: number) => ({ "Workflow-Id": created.workflowId, "Workflow-Index": String(index) });
    for (let i = 1; i <= 3; i++) {
      expect((await call(victim, "POST", "/api/Product", headers(i), { SKU: `${prefix}${i}` })).status).toBe(201);
    }
    hosts.at(-1)!.kill("SIGKILL");
    // another host picks the workflow up by its staging key, with everything staged so far
    const survivor = await startHost();
    const found = (await (await call(survivor, "GET", `/api/workflow/active?stagingKey=${stagingKey}`)).json()) as {
      workflowId: string;
      nextIndex: number;
    };
    expect(found).toEqual({ workflowId: created.workflowId, nextIndex: 4 });
    const staged = await call(survivor, "GET", `/api/Product/$count?$filter=startswith(SKU,'${prefix}')`, headers(4));
    expect(await staged.text()).toBe("3");
    let index = 5;
    for (let i = 4; i <= 150; i++) {
      expect((await call(survivor, "POST", "/api/Product", headers(index++), { SKU: `${prefix}${i}` })).status).toBe(
        201,
      );
    }
    // killed while committing: afterwards the commit is wholly in the main data or not at all
    const commit = call(survivor, "POST", "/api/workflow/commit", headers(index)).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 15));
    hosts.at(-1)!.kill("SIGKILL");
    await commit;
    const third = await startHost();
    const stored = Number(
      await (await call(third, "GET", `/api/Product/$count?$filter=startswith(SKU,'${prefix}')`)).text(),
    );
    expect([0, 150]).toContain(stored);
    if (stored === 0) {
      const resumed = (await (await call(third, "GET", `/api/workflow/${created.workflowId}`)).json()) as {
        nextIndex: number;
      };
      expect((await call(third, "POST", "/api/workflow/commit", headers(resumed.nextIndex))).status).toBe(200);
      expect(await (await call(third, "GET", `/api/Product/$count?$filter=startswith(SKU,'${prefix}')`)).text()).toBe(
        "150",
      );
    }
  }, 120_000);
});
