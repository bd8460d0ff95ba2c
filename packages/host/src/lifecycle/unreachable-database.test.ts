/**
 * While PostgreSQL cannot be reached, every request that needs it is answered at once with 503
 * and Retry-After, never with a hang or a 500. The app runs over a driver pointed at a loopback
 * port nobody listens on; its signing keys and token come from the shared test database.
 */
import { createServer } from "node:net";
import type { Database } from "@bizdata/core";
import { openPostgres } from "@bizdata/core/postgres";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { caller, config, PASSWORD, signIn, testApp } from "@bizdata/test-kit/host-app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

/** a loopback port that was free a moment ago: connecting to it is refused */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

describe("a host whose database is unreachable", () => {
  let down: Database;
  let tenantId: string;
  let token: string;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    const db = await testDatabase();
    await migrateService(db, sampleModel);
    tenantId = uniqueTenant("down");
    await createTenant(db, tenantId);
    await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
    token = await signIn(await testApp(), tenantId, "admin");
    down = await openPostgres(`postgres://postgres@127.0.0.1:${await closedPort()}/none`, {
      max: 2,
      connectTimeout: 1000,
      poolTimeout: 1000,
    });
    app = createApp({ db: down, model: sampleModel, keys: await loadSigningKeys(db), config });
  });
  afterAll(() => down?.close());

  it("answers every request that needs the database 503 with Retry-After", async () => {
    const api = caller(app, tenantId, token);
    const requests = [
      () => api.request("GET", "/api/Product"),
      () => api.request("GET", "/api/Product?$filter=SKU eq 'x'&$top=1"),
      () => api.request("POST", "/api/Product", { SKU: "down-1", SalesDescription: "Down", Price: 1 }),
      () => api.request("PATCH", "/api/Product(00000000-0000-4000-8000-000000000001)", { SalesDescription: "Up" }),
      () => api.request("DELETE", "/api/Product(00000000-0000-4000-8000-000000000001)"),
      () =>
        caller(app, tenantId, undefined).request("POST", "/api/auth/signin", {
          TenantId: tenantId,
          Username: "admin",
          Password: PASSWORD,
        }),
    ];
    // more at once than the pool has connections: the ones that wait are answered too
    const responses = await Promise.all([...requests, ...requests, ...requests].map((send) => send()));
    for (const res of responses) {
      const body = (await res.json()) as { error: { code: string } };
      expect([res.status, body.error.code, res.headers.get("Retry-After")]).toEqual([503, "ServiceUnavailable", "5"]);
    }
  });

  it("is alive but not ready", async () => {
    const live = await app.request("/health");
    expect([live.status, await live.json()]).toEqual([200, { status: "ok" }]);
    const ready = await app.request("/health/ready");
    expect([ready.status, ready.headers.get("Retry-After")]).toEqual([503, "5"]);
  });
});
