/**
 * The hand-written-URL style most JavaScript OData users pick: `odata-query` (object syntax in,
 * query string out) and `fetch`, with the bearer token as the only header. Lists with a count,
 * filters, expands, reads by key and creates; expected values come from the seeded data read
 * apart, so the test checks the URLs odata-query writes and what the service makes of them.
 */

import { dataOf } from "@bizdata/test-kit/host-app";
import odataQuery from "odata-query";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceService, sampleSizes, startReferenceService } from "./reference-service.js";

// odata-query has one declaration file, which TypeScript reads as CommonJS (the package is not
// "type": "module"): there the default import is the module and the function its `default`; at
// run time the ESM build's default import is the function itself
const buildQuery = odataQuery as unknown as typeof odataQuery.default;

let service: ReferenceService;

beforeAll(async () => {
  service = await startReferenceService("odata-query");
}, 120_000);

afterAll(async () => {
  await service?.close();
});

/** what a user writes: `fetch(base + entitySet + buildQuery(…))`, the body parsed; anything but 2xx throws */
async function odata(path: string, init: RequestInit = {}): Promise<any> {
  return service.explain(async () => {
    const res = await fetch(new URL(path, service.serviceUrl), {
      ...init,
      headers: { Authorization: service.authorization, Accept: "application/json", ...init.headers },
    });
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} answered ${res.status}`);
    return res.json();
  });
}

describe("odata-query and fetch against the reference host", () => {
  it("lists, ordered and paged, with the count", async () => {
    const page = await odata(
      `Product${buildQuery({ select: ["SKU", "Price"], orderBy: "SKU desc", top: 3, count: true })}`,
    );
    const all = (await service.getJson("Product?$select=SKU")).value.map((p: { SKU: string }) => p.SKU);
    expect(page["@odata.count"]).toBe(sampleSizes.products);
    expect(page.value.map((p: { SKU: string }) => p.SKU)).toEqual(all.sort().reverse().slice(0, 3));
  });

  it("filters: comparisons, a string function, a path through a reference and a Guid value", async () => {
    const products = (await service.getJson("Product?$select=SKU,Price")).value as { SKU: string; Price: number }[];
    const prices = products.map((p) => p.Price).sort((a, b) => a - b);
    const [low, high] = [prices[1]!, prices[prices.length - 2]!];
    const found = await odata(
      `Product${buildQuery({ select: ["SKU"], filter: { Price: { ge: low, le: high }, SKU: { startswith: "SKU-00000" } } })}`,
    );
    const expected = products.filter((p) => p.Price >= low && p.Price <= high && p.SKU.startsWith("SKU-00000"));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(products.length);
    expect(found.value.map((p: { SKU: string }) => p.SKU).sort()).toEqual(expected.map((p) => p.SKU).sort());

    const orders = (await service.getJson("SalesOrder?$select=DocNumber,SellToCustomer")).value;
    const customers = (await service.getJson("Customer?$select=Id")).value as { Guid: string; Id: string }[];
    const customer = customers.find((c) => orders.some((o: any) => o.SellToCustomer === c.Guid))!;
    const expectedDocs = orders.filter((o: any) => o.SellToCustomer === customer.Guid).map((o: any) => o.DocNumber);
    const byId = await odata(
      `SalesOrder${buildQuery({ select: ["DocNumber"], filter: { "SellToCustomer/Id": customer.Id } })}`,
    );
    expect(byId.value.map((o: any) => o.DocNumber).sort()).toEqual(expectedDocs.sort());
    const byGuid = await odata(
      `SalesOrder${buildQuery({ select: ["DocNumber"], filter: { SellToCustomer: { type: "guid", value: customer.Guid } } })}`,
    );
    expect(byGuid.value.map((o: any) => o.DocNumber).sort()).toEqual(expectedDocs.sort());
  });

  it("expands a reference and an owned collection with nested options", async () => {
    const query = buildQuery({
      select: ["DocNumber"],
      orderBy: "DocNumber",
      expand: { SellToCustomer: { select: ["Id"] }, Details: { select: ["LineNumber"], orderBy: "LineNumber desc" } },
    });
    const orders = await odata(`SalesOrder${query}`);
    expect(orders.value).toHaveLength(sampleSizes.orders);
    const refs = new Map(
      (await service.getJson("SalesOrder?$select=SellToCustomer")).value.map((o: any) => [o.Guid, o.SellToCustomer]),
    );
    const ids = new Map((await service.getJson("Customer?$select=Id")).value.map((c: any) => [c.Guid, c.Id]));
    for (const order of orders.value) {
      expect(order.SellToCustomer.Id, order.DocNumber).toBe(ids.get(refs.get(order.Guid)));
      const numbers = order.Details.map((d: { LineNumber: number }) => d.LineNumber);
      expect(numbers, order.DocNumber).toEqual([...numbers].sort((a: number, b: number) => b - a));
      expect(numbers).toHaveLength(sampleSizes.linesPerOrder);
    }
  });

  it("reads by key, written as a Guid and as a quoted string", async () => {
    const [first] = (await service.getJson("Product?$select=SKU,Price&$orderby=SKU&$top=1")).value;
    const asGuid = await odata(
      `Product${buildQuery({ key: { type: "guid", value: first.Guid }, select: ["SKU", "Price"] })}`,
    );
    expect(dataOf(asGuid)).toEqual(dataOf(first));
    const asString = await odata(`Product${buildQuery({ key: first.Guid, select: ["SKU", "Price"] })}`);
    expect(dataOf(asString)).toEqual(dataOf(first));
  });

  it("creates, with a reference by natural key, and reads the record back", async () => {
    const [customer] = (await service.getJson("Customer?$select=Id&$top=1")).value;
    const [product] = (await service.getJson("Product?$select=SKU&$top=1")).value;
    const created = await odata(`SalesOrder${buildQuery({ select: ["DocNumber"] })}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        DocNumber: "OQ-1",
        SellToCustomer: customer.Id,
        Details: [{ Product: product.SKU, Quantity: 2 }],
      }),
    });
    expect(created).toMatchObject({ Guid: expect.any(String), DocNumber: "OQ-1" });
    const read = await odata(
      `SalesOrder${buildQuery({
        key: { type: "guid", value: created.Guid },
        select: ["DocNumber"],
        expand: {
          SellToCustomer: { select: ["Id"] },
          Details: { select: ["Quantity"], expand: { Product: { select: ["SKU"] } } },
        },
      })}`,
    );
    expect(read).toMatchObject({
      DocNumber: "OQ-1",
      SellToCustomer: { Id: customer.Id },
      Details: [{ Quantity: 2, Product: { SKU: product.SKU } }],
    });
  });
});
