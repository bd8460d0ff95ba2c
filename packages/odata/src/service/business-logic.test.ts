import { sampleFeatures } from "@bizdata/examples";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;

/** the same small catalogue in a tenant with every sample feature and in one with none */
async function tenant(features: readonly string[]): Promise<ServiceTenant> {
  const api = await serviceTenant("logic");
  for (const f of features) await api.enable(f);
  const ok = async (res: Promise<Response>) => expect((await res).status).toBe(201);
  await ok(api.call("POST", "/api/PriceLevel", { body: { Name: "Dealer", DiscountPercent: 10 } }));
  await ok(api.call("POST", "/api/Product", { body: { SKU: "P-1", Price: 20, Cost: 8, SalesDescription: "Pump" } }));
  await ok(api.call("POST", "/api/Customer", { body: { Id: "C-1", CreditLimit: 1000 } }));
  return api;
}

let full: ServiceTenant;
let bare: ServiceTenant;
beforeAll(async () => {
  [full, bare] = await Promise.all([tenant(sampleFeatures), tenant([])]);
});

const order = (extra: object = {}) => ({
  DocNumber: `SO-${Math.random().toString(36).slice(2, 8)}`,
  SellToCustomer: "C-1",
  PriceLevel: "Dealer",
  Details: [{ Product: "P-1", Quantity: 3 }],
  ...extra,
});

describe("sample business logic", () => {
  it("prices lines from the product and, with PriceLevels, the order's price level; totals the order", async () => {
    const select = "?$select=TotalPrice&$expand=Details($select=UnitPrice,Description)";
    const discounted = await json(await full.call("POST", `/api/SalesOrder${select}`, { body: order() }));
    expect(discounted.Details[0]).toMatchObject({ UnitPrice: 18, Description: "Pump" });
    expect(discounted.TotalPrice).toBe(54);
    const listPrice = await json(await bare.call("POST", `/api/SalesOrder${select}`, { body: order() }));
    expect(listPrice.Details[0].UnitPrice).toBe(20);
    expect(listPrice.TotalPrice).toBe(60);
  });

  it("keeps a price the client sent and recomputes the total when lines change", async () => {
    const created = await json(
      await full.call("POST", "/api/SalesOrder?$select=TotalPrice", {
        body: order({ Details: [{ Product: "P-1", Quantity: 2, UnitPrice: 7.5 }] }),
      }),
    );
    expect(created.TotalPrice).toBe(15);
    const patched = await json(
      await full.call("PATCH", `/api/SalesOrder(${created.Guid})?$select=TotalPrice`, {
        body: {
          Details: [
            { Product: "P-1", Quantity: 1, UnitPrice: 7.5 },
            { Product: "P-1", Quantity: 1 },
          ],
        },
      }),
    );
    expect(patched.TotalPrice).toBe(25.5);
  });

  it("rejects an order without a customer or with a non-positive quantity, one detail per property", async () => {
    const res = await full.call("POST", "/api/SalesOrder", {
      body: order({
        SellToCustomer: null,
        Details: [
          { Product: "P-1", Quantity: 1 },
          { Product: "P-1", Quantity: 0 },
        ],
      }),
    });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.code).toBe("ValidationError");
    expect(error.details.map((d: { target: string }) => d.target).sort()).toEqual([
      "Details[1].Quantity",
      "SellToCustomer",
    ]);
  });

  it("asks about the credit limit on save; on a plain request the default (save) applies, with a warning", async () => {
    const res = await full.call("POST", "/api/SalesOrder", {
      body: order({ Details: [{ Product: "P-1", Quantity: 100 }] }),
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    const group = `${body.Guid}.TotalPrice`;
    expect(Object.keys(body["@userprompts"])).toEqual([group]);
    expect(body["@userprompts"][group]).toEqual([
      { id: expect.any(String), text: expect.stringContaining("over the credit limit 1000"), severity: "warning" },
    ]);
    // questions are not reported on plain requests, only messages (spec 2.4)
    expect(JSON.stringify(body["@userprompts"])).not.toContain("choices");
    // without the CreditCheck feature nothing is asked or said
    const quiet = await json(
      await bare.call("POST", "/api/SalesOrder", { body: order({ Details: [{ Product: "P-1", Quantity: 100 }] }) }),
    );
    expect(quiet["@userprompts"]).toBeUndefined();
  });

  it("raises a message when a product's cost changes, with CostChangeNotice only", async () => {
    for (const [caller, expected] of [
      [full, 1],
      [bare, 0],
    ] as const) {
      const { value } = await json(await caller.call("GET", "/api/Product?$filter=SKU eq 'P-1'"));
      const body = await json(await caller.call("PATCH", `/api/Product(${value[0].Guid})`, { body: { Cost: 9 } }));
      const messages = Object.values(body["@userprompts"] ?? {}).flat() as { text: string }[];
      expect(messages).toHaveLength(expected);
      if (expected) expect(messages[0]!.text).toBe("The cost of P-1 changed from 8 to 9.");
      await caller.call("PATCH", `/api/Product(${value[0].Guid})`, { body: { Cost: 8 } });
    }
  });

  it("accepts the legacy CustomerId through a deserialization hook", async () => {
    const { SellToCustomer: _, ...rest } = order();
    const res = await full.call("POST", "/api/SalesOrder?$select=SellToCustomer", {
      body: { ...rest, CustomerId: "C-1" },
    });
    expect(res.status).toBe(201);
    expect((await json(res)).SellToCustomer).toEqual(expect.any(String));
  });
});
