/**
 * The budgets a tenant's requests are held to (issue: hostile tenants): items per owned
 * collection on every write path, bytes per answer and per `$batch`. A service of its own with
 * small bounds, so that going over them costs a test little.
 */

import { uniqueTenant } from "@bizdata/test-kit/database";
import { limits, type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
beforeAll(async () => {
  const harness = await serviceHarness({
    writeLimits: { maxCollectionItems: 5 },
    queryLimits: { ...limits.queryLimits, maxAnswerBytes: 1024 },
    batchLimits: { ...limits.batchLimits, maxAnswerBytes: 2048 },
  });
  api = harness.tenant(uniqueTenant("budgets"));
  expect((await api.call("POST", "/api/Product", { body: { SKU: "P-1", Price: 2 } })).status).toBe(201);
  expect((await api.call("POST", "/api/Customer", { body: { Id: "C-1" } })).status).toBe(201);
});

const json = async (res: Response) => (await res.json()) as any;
const lines = (n: number) => Array.from({ length: n }, () => ({ Product: "P-1", Quantity: 1 }));
const count = async (path: string) => Number(await (await api.call("GET", path)).text());

describe("items per owned collection", () => {
  it("refuses an order with more lines than MAX_COLLECTION_ITEMS, naming the collection and the bound", async () => {
    const res = await api.call("POST", "/api/SalesOrder", {
      body: {
        DocNumber: "BIG",
        SellToCustomer: "C-1",
        Details: lines(6),
      },
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
    const created = await api.call("POST", "/api/SalesOrder?$expand=Details($select=Guid)", {
      body: {
        DocNumber: "FULL",
        SellToCustomer: "C-1",
        Details: lines(5),
      },
    });
    expect(created.status).toBe(201);
    const order = await json(created);
    const added = await api.call("POST", "/api/SalesOrderDetail", { body: { ...lines(1)[0], SalesOrder: order.Guid } });
    expect((await json(added)).error).toMatchObject({
      code: "CollectionTooLarge",
      target: `SalesOrder(${order.Guid})/Details`,
    });
    const other = await json(
      await api.call("POST", "/api/SalesOrder?$expand=Details($select=Guid)", {
        body: {
          DocNumber: "OTHER",
          SellToCustomer: "C-1",
          Details: lines(1),
        },
      }),
    );
    const moved = await api.call("PATCH", `/api/SalesOrderDetail(${other.Details[0].Guid})`, {
      body: {
        SalesOrder: order.Guid,
      },
    });
    expect([moved.status, (await json(moved)).error.code]).toEqual([400, "CollectionTooLarge"]);
    const kept = order.Details.map((d: { Guid: string }) => ({ Guid: d.Guid }));
    const patched = await api.call("PATCH", `/api/SalesOrder(${order.Guid})`, {
      body: {
        Details: [...kept, ...lines(1)],
      },
    });
    expect([patched.status, (await json(patched)).error.code]).toEqual([400, "CollectionTooLarge"]);
    expect(await count(`/api/SalesOrder(${order.Guid})/Details/$count`)).toBe(5);
    expect(await count(`/api/SalesOrder(${other.Guid})/Details/$count`)).toBe(1);
  });

  it("lets exactly one of thirty parallel additions fill the last place", async () => {
    const created = await api.call("POST", "/api/SalesOrder", {
      body: {
        DocNumber: "RACE",
        SellToCustomer: "C-1",
        Details: lines(4),
      },
    });
    const { Guid } = await json(created);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        api.call("POST", "/api/SalesOrderDetail", { body: { ...lines(1)[0], SalesOrder: Guid } }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(29);
    expect(await count(`/api/SalesOrder(${Guid})/Details/$count`)).toBe(5);
  });
});

describe("bytes per answer and per batch", () => {
  /** products whose descriptions make each about 300 bytes of an answer */
  const described = "described ".repeat(25);
  beforeAll(async () => {
    for (let i = 0; i < 6; i++) {
      const res = await api.call("POST", "/api/Product", { body: { SKU: `BIG-${i}`, SalesDescription: described } });
      expect(res.status).toBe(201);
    }
  });
  const big = (top: number) => `Product?$filter=startswith(SKU,'BIG-')&$select=SalesDescription&$top=${top}`;

  it("refuses a read whose answer is over MAX_ANSWER_BYTES, naming the limit, and answers a narrower one", async () => {
    const res = await api.call("GET", `/api/${big(6)}`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "AnswerTooLarge",
      message: expect.stringContaining("limit of 1024 bytes"),
    });
    const narrower = await api.call("GET", `/api/${big(2)}`);
    expect(narrower.status).toBe(200);
    expect((await json(narrower)).value).toHaveLength(2);
    // a single record is held to the same budget
    const one = await json(await api.call("GET", `/api/${big(1)}`));
    expect((await api.call("GET", `/api/Product(${one.value[0].Guid})?$select=SalesDescription`)).status).toBe(200);
  });

  it("stops a batch whose answers together pass MAX_BATCH_ANSWER_BYTES, each part within its own budget", async () => {
    const size = (await (await api.call("GET", `/api/${big(2)}`)).text()).length;
    const fit = Math.floor(2048 / size);
    expect(fit).toBeGreaterThanOrEqual(2);
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, method: "GET", url: big(2) })),
      },
    });
    expect(res.status).toBe(200);
    const { responses } = await json(res);
    // the parts that fit are answered; the one that passes the budget is not, the rest are not run
    const statuses = responses.map((r: { status: number }) => r.status);
    expect(statuses).toEqual([...Array(fit).fill(200), ...Array(6 - fit).fill(400)]);
    for (const r of responses.slice(fit)) {
      expect(r.body.error).toMatchObject({ code: "BatchTooLarge", message: expect.stringContaining("2048 bytes") });
    }
  });

  it("rolls back a changeset whose answers pass the batch's budget", async () => {
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: [
          { id: "read1", method: "GET", url: big(2) },
          { id: "read2", method: "GET", url: big(2) },
          ...[1, 2, 3, 4].map((i) => ({
            id: `w${i}`,
            atomicityGroup: "g",
            method: "POST",
            url: "Product?$select=SalesDescription",
            body: { SKU: `OVER-${i}`, SalesDescription: described },
          })),
        ],
      },
    });
    const { responses } = await json(res);
    const byId = Object.fromEntries(responses.map((r: { id: string }) => [r.id, r]));
    expect([byId.read1.status, byId.read2.status]).toEqual([200, 200]);
    // a part of the changeset passes the budget: the changeset fails as a whole
    for (const i of [1, 2, 3, 4]) expect(byId[`w${i}`].status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(responses)).toContain("BatchTooLarge");
    expect(await count("/api/Product/$count?$filter=startswith(SKU,'OVER-')")).toBe(0);
  });
});
