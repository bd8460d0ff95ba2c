/**
 * Resource subscriptions of MCP (resources/subscribe, notifications/resources/updated) with the
 * SDK's own client through real HTTP: a 2025 session that listens on its standing stream (GET) is
 * told when an entity set it subscribed to, or a record, changes, for the entity sets its caller
 * may read; a 2026-07-28 client is told on its subscriptions/listen stream.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { caller, config, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { connect, type Listening, listen } from "@bizdata/test-kit/mcp-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { defaultRoles } from "../auth/permissions.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { ChangeStreams } from "../changes/change-streams.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const roles = { ...defaultRoles, products: { read: ["Product"] } };
let host: Listening;
let app: ReturnType<typeof createApp>;
let tenantId: string;

beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const changeStream = { ...config.changeStream, pollMs: 20 };
  app = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, roles, changeStream },
    changeStreams: new ChangeStreams(db, changeStream),
  });
  tenantId = uniqueTenant("sub");
  await createTenant(db, tenantId);
  for (const user of ["admin", "products"]) await setUser(db, tenantId, user, PASSWORD, [user]);
  host = await listen(app);
});

afterAll(async () => {
  await host?.close();
});

/** a 2025 session of `user`'s whose standing stream is open, and the resources it was told were updated */
async function listening(user: string) {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const mcp = await connect(host.url, await signIn(app, tenantId, user), {
    revision: "2025-11-25",
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      if ((init?.method ?? "GET") === "GET" && res.status === 200) opened();
      return res;
    },
  });
  await open;
  const updated: string[] = [];
  const waiters: (() => void)[] = [];
  mcp.client.setNotificationHandler("notifications/resources/updated", (n) => {
    updated.push(n.params.uri);
    for (const w of waiters.splice(0)) w();
  });
  /** waits until `n` updates have come */
  const until = async (n: number) => {
    while (updated.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return [...updated];
  };
  return { mcp, updated, until };
}

describe("MCP resource subscriptions", () => {
  it("tell a 2025 session when a subscribed entity set or record changes, and stop when unsubscribed", async () => {
    const admin = caller(app, tenantId, await signIn(app, tenantId, "admin"));
    for (const id of ["C1", "C2"])
      expect((await admin.request("POST", "/api/Customer", { Id: id, CreditLimit: 10 })).status).toBe(201);
    const { mcp, until } = await listening("admin");
    expect(mcp.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const products = "bizdata://model/Product";
    const c1 = "bizdata://record/Customer/C1";
    await mcp.client.subscribeResource({ uri: products });
    await mcp.client.subscribeResource({ uri: c1 });
    expect((await admin.request("POST", "/api/Product", { SKU: "SUB-1", Price: 1 })).status).toBe(201);
    expect(await until(1)).toEqual([products]);
    const guidOf = async (id: string) =>
      ((await (await admin.request("GET", `/api/Customer?$filter=Id eq '${id}'`)).json()) as any).value[0].Guid;
    const [g1, g2] = [await guidOf("C1"), await guidOf("C2")];
    expect((await admin.request("PATCH", `/api/Customer(${g2})`, { CreditLimit: 20 })).status).toBe(200);
    expect((await admin.request("PATCH", `/api/Customer(${g1})`, { CreditLimit: 20 })).status).toBe(200);
    expect(await until(2)).toEqual([products, c1]);
    await mcp.client.unsubscribeResource({ uri: products });
    expect((await admin.request("POST", "/api/Product", { SKU: "SUB-2", Price: 1 })).status).toBe(201);
    expect((await admin.request("PATCH", `/api/Customer(${g1})`, { CreditLimit: 30 })).status).toBe(200);
    expect(await until(3)).toEqual([products, c1, c1]);
    await mcp.close();
  });

  it("refuses what the caller may not read and what is no entity set's or record's resource", async () => {
    const { mcp } = await listening("products");
    await expect(mcp.client.subscribeResource({ uri: "bizdata://model/Customer" })).rejects.toThrow(
      /not available to you/,
    );
    for (const uri of ["bizdata://model", "bizdata://model/$metadata", "https://example.com/x"])
      await expect(mcp.client.subscribeResource({ uri })).rejects.toThrow(/cannot be subscribed to/);
    await expect(mcp.client.subscribeResource({ uri: "bizdata://model/Gadget" })).rejects.toThrow(/not found/);
    await expect(mcp.client.subscribeResource({ uri: "bizdata://record/Product/NO-SUCH" })).rejects.toThrow();
    await mcp.close();
  });

  it("come to a 2026-07-28 client on its subscriptions/listen stream, only for what its caller may read", async () => {
    const admin = caller(app, tenantId, await signIn(app, tenantId, "admin"));
    const mcp = await connect(host.url, await signIn(app, tenantId, "products"));
    expect(mcp.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const updated: string[] = [];
    let told!: () => void;
    const first = new Promise<void>((resolve) => (told = resolve));
    mcp.client.setNotificationHandler("notifications/resources/updated", (n) => {
      updated.push(n.params.uri);
      told();
    });
    const products = "bizdata://model/Product";
    const customers = "bizdata://model/Customer";
    const listening = await mcp.client.listen({ resourceSubscriptions: [customers, products] });
    // a set the caller may not read is never notified: the product that comes after it is the first
    expect((await admin.request("POST", "/api/Customer", { Id: "LISTEN-C", CreditLimit: 1 })).status).toBe(201);
    expect((await admin.request("POST", "/api/Product", { SKU: "LISTEN-P", Price: 1 })).status).toBe(201);
    await first;
    expect(updated).toEqual([products]);
    await listening.close();
    expect(await listening.closed).toBe("local");
    await mcp.close();
  });
});
