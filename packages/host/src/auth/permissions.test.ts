import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadConfig } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { loadSigningKeys } from "./signing-keys.js";

// a role of its own: reads orders and products, creates orders, calls Read methods only
const ROLES = {
  admin: { read: "*", create: "*", update: "*", delete: "*", call: "*" },
  clerk: { read: ["SalesOrder", "SalesOrderDetail", "Product", "Journal"], create: ["SalesOrder"], call: ["read"] },
};

let clerk: Caller;
let admin: Caller;
let journal: string;

beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const app = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: loadConfig({ LOG_LEVEL: "silent", ROLES: JSON.stringify(ROLES) }),
  });
  const tenantId = uniqueTenant("perm");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  await setUser(db, tenantId, "clerk", PASSWORD, ["clerk"]);
  const token = (username: string) => signIn(app, tenantId, username);
  admin = caller(app, tenantId, await token("admin"));
  clerk = caller(app, tenantId, await token("clerk"));
  await admin.request("POST", "/api/Product", { SKU: "P-1", Price: 1 });
  await admin.request("POST", "/api/Customer", { Id: "C-1" });
  journal = (
    (await (await admin.request("POST", "/api/Journal", { DocNumber: "J-1", Amount: 1 })).json()) as { Guid: string }
  ).Guid;
});

describe("permissions per entity and method", () => {
  it.each([
    ["read an entity it may read", "GET", "/api/SalesOrder", undefined, 200],
    ["read an entity it may not read", "GET", "/api/Customer", undefined, 403],
    ["$expand into an entity it may not read", "GET", "/api/SalesOrder?$expand=SellToCustomer", undefined, 403],
    ["count an entity it may not read", "GET", "/api/Customer/$count", undefined, 403],
    [
      "create what it may create",
      "POST",
      "/api/SalesOrder",
      { DocNumber: "SO-1", SellToCustomer: "C-1", Details: [{ Product: "P-1", Quantity: 1 }] },
      201,
    ],
    ["create what it may not", "POST", "/api/Product", { SKU: "P-2" }, 403],
    ["call a Read method", "GET", "/api/SalesOrder/GetOpenOrders()?customerId=C-1", undefined, 200],
  ])("lets a clerk %s (%s %s → %i)", async (_, method, path, body, status) => {
    const res = await clerk.request(method, path, body);
    expect(res.status).toBe(status);
    if (status === 403) expect(((await res.json()) as any).error.code).toBe("Forbidden");
  });

  it("refuses updates, deletes and Modify methods the role lacks, also inside a batch", async () => {
    const product = ((await (await admin.request("GET", "/api/Product?$top=1")).json()) as any).value[0].Guid;
    expect((await clerk.request("PATCH", `/api/Product(${product})`, { Price: 2 })).status).toBe(403);
    expect((await clerk.request("DELETE", `/api/Product(${product})`)).status).toBe(403);
    expect((await clerk.request("POST", `/api/Journal(${journal})/Post`)).status).toBe(403);
    const batch = await clerk.request("POST", "/api/$batch", {
      requests: [
        { id: "1", method: "GET", url: "Customer" },
        { id: "2", method: "POST", url: "Product", body: { SKU: "P-3" } },
        { id: "3", method: "GET", url: "Product/$count" },
      ],
    });
    const statuses = ((await batch.json()) as any).responses.map((r: { status: number }) => r.status);
    expect(statuses).toEqual([403, 403, 200]);
  });

  it("checks every workflow step and keeps the index where it was on a refused one", async () => {
    const wf = ((await (await clerk.request("POST", "/api/workflow")).json()) as { workflowId: string }).workflowId;
    const step = (index: number, method: string, path: string, body?: unknown) =>
      clerk.request(method, path, body, { "Workflow-Id": wf, "Workflow-Index": String(index) });
    const refused = await step(1, "POST", "/api/Product", { SKU: "WF-NO" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("Workflow-Next-Index")).toBe("1");
    expect((await step(1, "GET", "/api/Customer")).status).toBe(403);
    const allowed = await step(1, "POST", "/api/SalesOrder", {
      DocNumber: "SO-WF",
      SellToCustomer: "C-1",
      Details: [{ Product: "P-1", Quantity: 1 }],
    });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get("Workflow-Next-Index")).toBe("2");
    // the order's new lines commit with the right to create orders, as the deep insert staged them
    const committed = await step(2, "POST", "/api/workflow/commit");
    expect(committed.status).toBe(200);
    expect(((await committed.json()) as { message: string }).message).toBe("Committed 2 changes.");
    const stored = await admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'SO-WF'&$expand=Details");
    expect(((await stored.json()) as any).value[0].Details).toHaveLength(1);
  });
});
