/**
 * The budgets a tenant's requests are held to (issue: hostile tenants): items per owned
 * collection on every write path. A host of its own with small bounds, so that going over them
 * costs a test little.
 */
import { sampleModel } from "@bizdata/examples";
import { beforeAll, describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
import { type Caller, caller, PASSWORD, signIn } from "../../../../test/host-app.js";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const config = loadConfig({ MAX_COLLECTION_ITEMS: "5", LOG_LEVEL: "silent" });

let admin: Caller;
beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const app = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
  const tenantId = uniqueTenant("budgets");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  admin = caller(app, tenantId, await signIn(app, tenantId, "admin"));
  expect((await admin.request("POST", "/api/Product", { SKU: "P-1", Price: 2 })).status).toBe(201);
  expect((await admin.request("POST", "/api/Customer", { Id: "C-1" })).status).toBe(201);
});

const json = async (res: Response) => (await res.json()) as any;
const lines = (n: number) => Array.from({ length: n }, () => ({ Product: "P-1", Quantity: 1 }));
const count = async (path: string) => Number(await (await admin.request("GET", path)).text());

describe("items per owned collection", () => {
  it("refuses an order with more lines than MAX_COLLECTION_ITEMS, naming the collection and the bound", async () => {
    const res = await admin.request("POST", "/api/SalesOrder", {
      DocNumber: "BIG",
      SellToCustomer: "C-1",
      Details: lines(6),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "CollectionTooLarge",
      target: "Details",
      message: "Details may hold at most 5 items; this write would leave it with 6.",
    });
    expect(await count("/api/SalesOrder/$count?$filter=DocNumber eq 'BIG'")).toBe(0);
    expect(await count("/api/SalesOrderDetail/$count")).toBe(0);
  });

  it("counts the lines already stored when a line is added on its own, moved in, or added by PATCH", async () => {
    const created = await admin.request("POST", "/api/SalesOrder?$expand=Details", {
      DocNumber: "FULL",
      SellToCustomer: "C-1",
      Details: lines(5),
    });
    expect(created.status).toBe(201);
    const order = await json(created);
    const added = await admin.request("POST", "/api/SalesOrderDetail", { ...lines(1)[0], SalesOrder: order.Guid });
    expect((await json(added)).error).toMatchObject({
      code: "CollectionTooLarge",
      target: `SalesOrder(${order.Guid})/Details`,
    });
    const other = await json(
      await admin.request("POST", "/api/SalesOrder?$expand=Details", {
        DocNumber: "OTHER",
        SellToCustomer: "C-1",
        Details: lines(1),
      }),
    );
    const moved = await admin.request("PATCH", `/api/SalesOrderDetail(${other.Details[0].Guid})`, {
      SalesOrder: order.Guid,
    });
    expect([moved.status, (await json(moved)).error.code]).toEqual([400, "CollectionTooLarge"]);
    const kept = order.Details.map((d: { Guid: string }) => ({ Guid: d.Guid }));
    const patched = await admin.request("PATCH", `/api/SalesOrder(${order.Guid})`, {
      Details: [...kept, ...lines(1)],
    });
    expect([patched.status, (await json(patched)).error.code]).toEqual([400, "CollectionTooLarge"]);
    expect(await count(`/api/SalesOrder(${order.Guid})/Details/$count`)).toBe(5);
    expect(await count(`/api/SalesOrder(${other.Guid})/Details/$count`)).toBe(1);
  });

  it("lets exactly one of thirty parallel additions fill the last place", async () => {
    const created = await admin.request("POST", "/api/SalesOrder", {
      DocNumber: "RACE",
      SellToCustomer: "C-1",
      Details: lines(4),
    });
    const { Guid } = await json(created);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        admin.request("POST", "/api/SalesOrderDetail", { ...lines(1)[0], SalesOrder: Guid }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(29);
    expect(await count(`/api/SalesOrder(${Guid})/Details/$count`)).toBe(5);
  });
});
