/**
 * odata2ts' typed client, generated from the reference host's `$metadata` by `@odata2ts/odata2ts`
 * (mode `service`) as its users generate it, over its fetch HTTP client with the bearer token as
 * the only setting: lists, filters, counts, expands (a reference and an owned collection),
 * navigation to an owned collection, reads by key, creates, updates, deletes, an owned item (a
 * product's `Uoms` unit) created in its owner's collection, read, patched and deleted by key under
 * its owner and in its own entity set, and the sample domain's bound functions and actions. Expected values come from the service's own JSON through
 * plain fetch, or are computed from it the way the sample methods compute them.
 */

import { dataOf } from "@bizdata/test-kit/host-app";
import type { FetchRequestConfig } from "@odata2ts/http-client-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientProject, clientProject } from "./client-project.js";
import { type ReferenceService, sampleSizes, startReferenceService } from "./reference-service.js";

let service: ReferenceService;
let project: ClientProject;
let generatorOutput: string;
/** the generated `BizdataService` over odata2ts' fetch client */
let api: any;

beforeAll(async () => {
  service = await startReferenceService("odata2ts");
  project = await clientProject("odata2ts", await service.metadataXml());
  generatorOutput = await project.npx("odata2ts", [
    "--source",
    "bizdata.xml",
    "--output",
    "generated",
    "--mode",
    "service",
    "--emit-mode",
    "ts",
  ]);
  const { BizdataService } = await project.load("generated/BizdataService.ts");
  const { FetchClient } = await import("@odata2ts/http-client-fetch");
  // its config type asks for `cache` (what it sends by default: no-cache)
  const config: FetchRequestConfig = { headers: { Authorization: service.authorization }, cache: "no-cache" };
  const http = new FetchClient(config);
  api = new BizdataService(http, service.serviceUrl.replace(/\/$/, ""));
}, 180_000);

afterAll(async () => {
  await service?.close();
  await project?.remove();
});

/** the response body of an odata2ts call */
const data = async (call: () => Promise<{ data: any }>) => (await service.explain(call)).data;

describe("the odata2ts generator", () => {
  it("makes a service with an entry per entity set of the service document", async () => {
    expect(generatorOutput).toContain("Successfully finished");
    const sets = (await service.getJson("")).value.filter((r: { kind: string }) => r.kind === "EntitySet");
    expect(sets.length).toBeGreaterThan(5);
    for (const { name } of sets) expect(api[name]?.().getPath?.(), name).toMatch(new RegExp(`/${name}$`));
  });
});

describe("the generated client against the reference host", () => {
  it("lists, ordered and paged, with the count", async () => {
    const page = await data(() =>
      api.Product().query((b: any, q: any) => b.select("SKU", "Price").orderBy(q.SKU.asc()).top(4).count()),
    );
    const expected = await service.getJson("Product?$select=SKU,Price&$orderby=SKU&$top=4");
    expect(page.value).toEqual(expected.value);
    expect(page["@odata.count"]).toBe(sampleSizes.products);
  });

  it("filters, with a string function and a comparison", async () => {
    const all = (await service.getJson("Product?$select=SKU,Price")).value as { SKU: string; Price: number }[];
    const median = all.map((p) => p.Price).sort((a, b) => a - b)[all.length >> 1]!;
    const found = await data(() =>
      api
        .Product()
        .query((b: any, q: any) => b.select("SKU").filter(q.SKU.startsWith("SKU-00000"), q.Price.gt(median))),
    );
    const expected = all.filter((p) => p.SKU.startsWith("SKU-00000") && p.Price > median).map((p) => p.SKU);
    expect(expected.length).toBeGreaterThan(0);
    expect(found.value.map((p: { SKU: string }) => p.SKU).sort()).toEqual(expected.sort());
  });

  it("expands a reference and an owned collection, with nested options", async () => {
    const orders = await data(() =>
      api.SalesOrder().query((b: any, q: any) =>
        b
          .select("DocNumber")
          .orderBy(q.DocNumber.asc())
          .expanding("SellToCustomer", (c: any) => c.select("Id"))
          .expanding("Details", (d: any, qd: any) => d.select("LineNumber", "Quantity").orderBy(qd.LineNumber.asc())),
      ),
    );
    expect(orders.value).toHaveLength(sampleSizes.orders);
    const refs = (await service.getJson("SalesOrder?$select=DocNumber,SellToCustomer")).value;
    const ids = new Map((await service.getJson("Customer?$select=Id")).value.map((c: any) => [c.Guid, c.Id]));
    const lines = (await service.getJson("SalesOrder?$select=DocNumber&$expand=Details($select=SalesOrder)")).value;
    for (const order of orders.value) {
      const ref = refs.find((r: any) => r.DocNumber === order.DocNumber);
      expect(order.SellToCustomer.Id, order.DocNumber).toBe(ids.get(ref.SellToCustomer));
      expect(order.Details.map((d: any) => d.LineNumber)).toEqual([1, 2].slice(0, sampleSizes.linesPerOrder));
      expect(order.Details).toHaveLength(lines.find((l: any) => l.DocNumber === order.DocNumber).Details.length);
    }
  });

  it("reads by key", async () => {
    const [first] = (await service.getJson("Product?$select=SKU,Cost&$orderby=SKU&$top=1")).value;
    const product = await data(() => api.Product(first.Guid).query((b: any) => b.select("SKU", "Cost")));
    expect(dataOf(product)).toEqual(dataOf(first));
  });

  it("navigates from an order to its lines", async () => {
    const [order] = (await service.getJson("SalesOrder?$select=DocNumber&$expand=Details($select=Quantity)&$top=1"))
      .value;
    const lines = await data(() =>
      api
        .SalesOrder(order.Guid)
        .Details()
        .query((b: any) => b.select("Quantity")),
    );
    expect(lines.value.map((l: any) => l.Guid).sort()).toEqual(order.Details.map((l: any) => l.Guid).sort());
  });

  it("creates, updates and deletes", async () => {
    const created = await data(() => api.Product().create({ SKU: "O2TS-1", SalesDescription: "made by odata2ts" }));
    expect(created.Guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await service.getJson(`Product(${created.Guid})?$select=SKU,SalesDescription`)).toMatchObject({
      SKU: "O2TS-1",
      SalesDescription: "made by odata2ts",
    });
    await service.explain(() => api.Product(created.Guid).patch({ SalesDescription: "changed by odata2ts" }));
    expect((await service.getJson(`Product(${created.Guid})?$select=SalesDescription`)).SalesDescription).toBe(
      "changed by odata2ts",
    );
    await service.explain(() => api.Product(created.Guid).delete());
    expect(await service.status(`Product(${created.Guid})`)).toBe(404);
  });
});

describe("an owned item through the generated client", () => {
  it("creates a unit in a product's Uoms, reads, patches and deletes it by key under the product", async () => {
    const [product] = (await service.getJson("Product?$select=SKU&$orderby=SKU&$top=1")).value;
    const uoms = () => api.Product(product.Guid).Uoms();
    const mark = service.exchanges.mark();
    const created = await data(() => uoms().create({ Name: "O2TS-BOX", Factor: 12 }));
    expect(created.Guid).toMatch(/^[0-9a-f-]{36}$/);
    const post = service.exchanges.since(mark).find((e) => e.method === "POST");
    expect(post?.url).toMatch(new RegExp(`/Product\\((Guid=)?'?${product.Guid}'?\\)/Uoms$`));
    const under = () => api.Product(product.Guid).Uoms(created.Guid);
    const read = await data(() => under().query((b: any) => b.select("Name", "Factor")));
    expect(dataOf(read)).toEqual({ Guid: created.Guid, Name: "O2TS-BOX", Factor: 12 });
    await service.explain(() => under().patch({ Factor: 24 }));
    expect((await service.getJson(`ProductUom(${created.Guid})?$select=Factor`)).Factor).toBe(24);
    await service.explain(() => under().delete());
    expect(await service.status(`Product(${product.Guid})/Uoms(${created.Guid})`)).toBe(404);
    expect(await service.status(`ProductUom(${created.Guid})`)).toBe(404);
  });

  it("reads and patches a unit in its own entity set, ProductUom", async () => {
    const [product] = (await service.getJson("Product?$select=SKU&$expand=Uoms($select=Name)&$top=1")).value;
    const [unit] = product.Uoms;
    const read = await data(() => api.ProductUom(unit.Guid).query((b: any) => b.select("Name")));
    expect(dataOf(read)).toEqual({ Guid: unit.Guid, Name: unit.Name });
    await service.explain(() => api.ProductUom(unit.Guid).patch({ Factor: 3 }));
    expect((await service.getJson(`Product(${product.Guid})/Uoms(${unit.Guid})?$select=Factor`)).Factor).toBe(3);
  });

  it("a unit under another product is not found there", async () => {
    const products = (await service.getJson("Product?$select=SKU&$expand=Uoms($select=Guid)&$top=2")).value;
    const [a, b] = products;
    const err = await api
      .Product(b.Guid)
      .Uoms(a.Uoms[0].Guid)
      .query()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as { status?: number }).status).toBe(404);
  });
});

describe("bound operations of the sample domain", () => {
  it("a function bound to a record: Product.GetDefaultMarkup", async () => {
    const [product] = (await service.getJson("Product?$select=Cost,Price&$filter=Cost gt 0&$top=1")).value;
    const markup = await data(() => api.Product(product.Guid).GetDefaultMarkup());
    const expected = Math.round(((product.Price - product.Cost) / product.Cost) * 10_000) / 100;
    expect(markup.value).toBeCloseTo(expected, 2);
  });

  it("a function with parameters: SalesOrder.CalculateLineTotal", async () => {
    const [order] = (
      await service.getJson(
        "SalesOrder?$select=TotalPrice&$filter=TotalPrice gt 0&$expand=Details($select=Quantity)&$top=1",
      )
    ).value;
    const total = await data(() =>
      api.SalesOrder(order.Guid).CalculateLineTotal({ taxRate: 0.2, quantity: 3, discount: 10 }),
    );
    const quantity = order.Details.reduce((n: number, d: { Quantity: number }) => n + d.Quantity, 0);
    expect(total.value).toBeCloseTo(3 * (order.TotalPrice / quantity) * 0.9 * 1.2, 2);
  });

  it("a function bound to the collection: SalesOrder.GetOpenOrders", async () => {
    const [customer] = (await service.getJson("Customer?$select=Id&$orderby=Id&$top=1")).value;
    const open = await data(() => api.SalesOrder().GetOpenOrders({ customerId: customer.Id }));
    const expected = await service.getJson(
      `SalesOrder?$filter=SellToCustomer/Id eq '${customer.Id}' and Status eq 'Open'&$select=Guid`,
    );
    expect(open.value.map((o: any) => o.Guid).sort()).toEqual(expected.value.map((o: any) => o.Guid).sort());
  });

  it("an action bound to a record: Journal.Post", async () => {
    const [journal] = (await service.getJson("Journal?$filter=IsPosted eq false and Amount ne null&$top=1")).value;
    await service.explain(() => api.Journal(journal.Guid).Post());
    expect(await service.getJson(`Journal(${journal.Guid})?$select=IsPosted,RecordReadOnly`)).toMatchObject({
      IsPosted: true,
      RecordReadOnly: ["Post"],
    });
  });

  it("an action with a parameter: SalesOrder.ReorderFrom copies another order's lines", async () => {
    const [source] = (
      await service.getJson("SalesOrder?$select=SellToCustomer&$expand=Details($select=Product,Quantity)&$top=1")
    ).value;
    // odata2ts writes a navigation property as an entity, not a reference by Guid: create the order by hand
    const created = await service.postJson("SalesOrder", {
      DocNumber: "O2TS-REORDER",
      SellToCustomer: source.SellToCustomer,
    });
    await service.explain(() => api.SalesOrder(created.Guid).ReorderFrom({ salesOrderGuid: source.Guid }));
    const copy = await service.getJson(`SalesOrder(${created.Guid})?$expand=Details($select=Product,Quantity)`);
    const lines = (o: any) => o.Details.map((d: any) => `${d.Product} × ${d.Quantity}`).sort();
    expect(lines(copy)).toEqual(lines(source));
  });
});
