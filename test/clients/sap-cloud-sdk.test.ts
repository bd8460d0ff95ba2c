/**
 * The SAP Cloud SDK's typed OData v4 client, generated from the reference host's `$metadata` by
 * `@sap-cloud-sdk/generator` as its users generate it, then pointed at the host with only a
 * destination (URL and bearer token): lists, filters, expands, reads by key, creates, updates
 * with its ETag handling, deletes, and a `$batch` with a changeset; an owned item (an order's
 * `Details` line) read, patched and deleted by key in its own entity set, and an order created
 * with `Prefer: return=representation` (the SDK sends no preference of its own, and reads the
 * created entity from the body: without one, the spec's default answers the Guid alone) coming
 * back with its fields. Expected values come from the
 * service's own JSON through plain fetch, so the test checks the client's URLs, bodies and
 * parsing, not the service's query engine.
 */
import { and, asc } from "@sap-cloud-sdk/odata-v4";
import { setGlobalLogLevel } from "@sap-cloud-sdk/util";
import { BigNumber } from "bignumber.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientProject, clientProject } from "./client-project.js";
import { type ReferenceService, sampleSizes, startReferenceService } from "./reference-service.js";

let service: ReferenceService;
let project: ClientProject;
let generatorOutput: string;
/** the generated client: one API object per entity set, plus batch and changeset */
let client: any;
/** what the SAP Cloud SDK calls where a service lives and how to authenticate there */
let destination: { url: string; headers: Record<string, string> };

beforeAll(async () => {
  // the SDK warns on stdout that the CSRF token probe before a $batch was refused (405: a bearer
  // token needs no CSRF token, and $batch answers only POST); the tests read the exchanges instead
  setGlobalLogLevel("error");
  service = await startReferenceService("sap-sdk");
  project = await clientProject("sap-cloud-sdk", await service.metadataXml());
  generatorOutput = await project.npx("generate-odata-client", [
    "--input",
    "bizdata.xml",
    "--outputDir",
    "generated",
    "--generateESM",
  ]);
  const { bizdata } = await project.load("generated/bizdata/index.ts");
  client = bizdata();
  destination = { url: service.serviceUrl, headers: { authorization: service.authorization } };
}, 180_000);

afterAll(async () => {
  await service?.close();
  await project?.remove();
});

/** runs a request builder of the generated client against the host (failures name the exchanges) */
const execute = (request: any): Promise<any> => service.explain(() => request.execute(destination));

/** the HTTP status of a failed SAP request (its error wraps axios' error) */
function statusOf(err: unknown): number | undefined {
  for (let e: any = err; e; e = e.cause) if (e.response?.status) return e.response.status;
  return undefined;
}

describe("the SAP Cloud SDK generator", () => {
  it("makes an API for every entity set of the service document", async () => {
    expect(generatorOutput).toContain("Generation of services finished successfully");
    const sets = (await service.getJson("")).value
      .filter((r: { kind: string }) => r.kind === "EntitySet")
      .map((r: { name: string }) => r.name);
    expect(sets.length).toBeGreaterThan(5);
    for (const name of sets) {
      const api = client[`${name[0]!.toLowerCase()}${name.slice(1)}Api`];
      expect(api?.entityConstructor?._entityName, name).toBe(name);
    }
  });
});

describe("the generated client against the reference host", () => {
  it("lists, ordered and paged, and counts", async () => {
    const { productApi } = client;
    const S = productApi.schema;
    const products = await execute(
      productApi.requestBuilder().getAll().select(S.SKU, S.PRICE).orderBy(asc(S.SKU)).top(5),
    );
    const expected = (await service.getJson("Product?$select=SKU,Price&$orderby=SKU&$top=5")).value;
    expect(products.map((p: any) => p.sku)).toEqual(expected.map((p: any) => p.SKU));
    // decimals arrive as BigNumber, exactly
    expect(products.map((p: any) => p.price?.toNumber() ?? null)).toEqual(expected.map((p: any) => p.Price));
    const count = await execute(productApi.requestBuilder().getAll().count());
    expect(count).toBe(sampleSizes.products);
  });

  it("filters", async () => {
    const { productApi } = client;
    const S = productApi.schema;
    const all = (await service.getJson("Product?$select=SKU,Price")).value as { SKU: string; Price: number }[];
    const prices = all.map((p) => p.Price).sort((a, b) => a - b);
    const [low, high] = [prices[2]!, prices[prices.length - 3]!];
    const found = await execute(
      productApi
        .requestBuilder()
        .getAll()
        .select(S.SKU)
        .filter(and(S.PRICE.greaterOrEqual(low), S.PRICE.lessThan(high))),
    );
    const expected = all.filter((p) => p.Price >= low && p.Price < high).map((p) => p.SKU);
    expect(expected.length).toBeGreaterThan(0);
    expect(found.map((p: any) => p.sku).sort()).toEqual(expected.sort());
  });

  it("expands a reference with a nested $select", async () => {
    const { salesOrderApi, customerApi } = client;
    const O = salesOrderApi.schema;
    const orders = await execute(
      salesOrderApi
        .requestBuilder()
        .getAll()
        .select(O.DOC_NUMBER)
        .expand(O.SELL_TO_CUSTOMER.select(customerApi.schema.ID)),
    );
    // the expected customer of each order, from the order's reference and the customer list
    const refs = (await service.getJson("SalesOrder?$select=DocNumber,SellToCustomer")).value;
    const ids = new Map((await service.getJson("Customer?$select=Id")).value.map((c: any) => [c.Guid, c.Id]));
    expect(orders).toHaveLength(sampleSizes.orders);
    const byDoc = new Map(refs.map((o: any) => [o.DocNumber, ids.get(o.SellToCustomer)]));
    for (const order of orders) expect(order.sellToCustomer?.id, order.docNumber).toBe(byDoc.get(order.docNumber));
  });

  it("reads by key", async () => {
    const { productApi } = client;
    const S = productApi.schema;
    const [first] = (await service.getJson("Product?$select=SKU,SalesDescription&$orderby=SKU&$top=1")).value;
    const product = await execute(productApi.requestBuilder().getByKey(first.Guid).select(S.SKU, S.SALES_DESCRIPTION));
    expect({ guid: product.guid, sku: product.sku, description: product.salesDescription }).toEqual({
      guid: first.Guid,
      sku: first.SKU,
      description: first.SalesDescription,
    });
  });

  it("creates", async () => {
    const { productApi } = client;
    const draft = productApi.entityBuilder().sku("SAP-CREATE").salesDescription("made by the SAP client").build();
    const created = await execute(productApi.requestBuilder().create(draft));
    expect(created.guid).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await service.getJson(`Product(${created.guid})?$select=SKU,SalesDescription`);
    expect(stored).toMatchObject({ SKU: "SAP-CREATE", SalesDescription: "made by the SAP client" });
  });

  it("updates with the entity's ETag, and a stale ETag is refused with 412", async () => {
    const { productApi } = client;
    const S = productApi.schema;
    const draft = productApi.entityBuilder().sku("SAP-UPDATE").salesDescription("first").build();
    const { guid } = await execute(productApi.requestBuilder().create(draft));
    const read = () => execute(productApi.requestBuilder().getByKey(guid).select(S.SKU, S.SALES_DESCRIPTION));
    const product = await read();
    // the client keeps the ETag the service sent with the entity
    expect(product.versionIdentifier).toEqual(expect.any(String));
    const stale = await read();

    product.salesDescription = "second";
    const mark = service.exchanges.mark();
    await execute(productApi.requestBuilder().update(product));
    const patch = service.exchanges.since(mark).find((e) => e.method === "PATCH");
    expect(patch?.requestHeaders["if-match"]).toBe(stale.versionIdentifier);
    expect((await service.getJson(`Product(${guid})?$select=SalesDescription`)).SalesDescription).toBe("second");

    // `stale` still holds the ETag from before the update
    stale.salesDescription = "lost update";
    const refused = await productApi
      .requestBuilder()
      .update(stale)
      .execute(destination)
      .catch((err: unknown) => err);
    expect(statusOf(refused), String(refused)).toBe(412);
    expect((await service.getJson(`Product(${guid})?$select=SalesDescription`)).SalesDescription).toBe("second");
  });

  it("deletes, with the ETag of the entity it read", async () => {
    const { productApi } = client;
    const draft = productApi.entityBuilder().sku("SAP-DELETE").build();
    const created = await execute(productApi.requestBuilder().create(draft));
    const product = await execute(productApi.requestBuilder().getByKey(created.guid).select(productApi.schema.SKU));
    const mark = service.exchanges.mark();
    await execute(productApi.requestBuilder().delete(product));
    const sent = service.exchanges.since(mark).find((e) => e.method === "DELETE");
    expect(sent?.requestHeaders["if-match"]).toBe(product.versionIdentifier);
    expect(await service.status(`Product(${created.guid})`)).toBe(404);
  });

  it("runs a $batch with a changeset (committed together) and a read", async () => {
    const { productApi, batch, changeset } = client;
    const S = productApi.schema;
    const create = (sku: string) => productApi.requestBuilder().create(productApi.entityBuilder().sku(sku).build());
    const [writes, read] = await execute(
      batch(
        changeset(create("SAP-BATCH-1"), create("SAP-BATCH-2")),
        productApi.requestBuilder().getAll().select(S.SKU).orderBy(asc(S.SKU)).top(3),
      ),
    );
    expect(writes.isWriteResponses()).toBe(true);
    expect(writes.responses.map((r: any) => r.httpCode)).toEqual([201, 201]);
    const created = writes.responses.map((r: any) => r.as(productApi));
    expect(created.map((p: any) => p.guid)).toEqual([expect.any(String), expect.any(String)]);
    for (const p of created)
      expect((await service.getJson(`Product(${p.guid})?$select=SKU`)).SKU).toMatch(/^SAP-BATCH-/);

    expect(read.isReadResponse()).toBe(true);
    const expected = (await service.getJson("Product?$select=SKU&$orderby=SKU&$top=3")).value;
    expect(read.as(productApi).map((p: any) => p.sku)).toEqual(expected.map((p: any) => p.SKU));
  });

  it("a changeset whose second write fails commits nothing", async () => {
    const { productApi, batch, changeset } = client;
    const create = (sku: string) => productApi.requestBuilder().create(productApi.entityBuilder().sku(sku).build());
    // the second create repeats a SKU that exists: the natural key is unique
    const [taken] = (await service.getJson("Product?$select=SKU&$top=1")).value;
    const [result] = await execute(batch(changeset(create("SAP-BATCH-ROLLBACK"), create(taken.SKU))));
    expect(result.isError()).toBe(true);
    expect(result.httpCode).toBe(400);
    const left = await service.getJson(`Product?$filter=SKU eq 'SAP-BATCH-ROLLBACK'&$select=SKU`);
    expect(left.value).toEqual([]);
  });
});

describe("an owned item and a created order through the generated client", () => {
  /** an order of the sample data with its lines, as the service has them */
  const anOrder = async () =>
    (
      await service.getJson(
        "SalesOrder?$select=TotalPrice&$expand=Details($select=LineNumber,Quantity,UnitPrice;$orderby=LineNumber)&$filter=Details/$count gt 1&$top=1",
      )
    ).value[0];

  it("reads one Details line by key, with LineNumber and Quantity where the SDK declares them", async () => {
    const { salesOrderDetailApi } = client;
    const S = salesOrderDetailApi.schema;
    const order = await anOrder();
    const [first] = order.Details;
    const line = await execute(
      salesOrderDetailApi.requestBuilder().getByKey(first.Guid).select(S.LINE_NUMBER, S.QUANTITY),
    );
    expect({ guid: line.guid, lineNumber: line.lineNumber, quantity: line.quantity.toNumber() }).toEqual({
      guid: first.Guid,
      lineNumber: first.LineNumber,
      quantity: first.Quantity,
    });
  });

  it("patches one Details line by key with its ETag, and the order's total follows", async () => {
    const { salesOrderDetailApi } = client;
    const S = salesOrderDetailApi.schema;
    const order = await anOrder();
    const [first] = order.Details;
    const line = await execute(salesOrderDetailApi.requestBuilder().getByKey(first.Guid).select(S.QUANTITY));
    line.quantity = new BigNumber(first.Quantity + 2);
    const etag = line.versionIdentifier;
    const mark = service.exchanges.mark();
    await execute(salesOrderDetailApi.requestBuilder().update(line));
    const patch = service.exchanges.since(mark).find((e) => e.method === "PATCH");
    expect(patch?.url).toMatch(new RegExp(`/SalesOrderDetail\\((Guid=)?${first.Guid}\\)$`));
    expect(patch?.requestHeaders["if-match"]).toBe(etag);
    expect((await service.getJson(`SalesOrderDetail(${first.Guid})?$select=Quantity`)).Quantity).toBe(
      first.Quantity + 2,
    );
    const total = (await service.getJson(`SalesOrder(${order.Guid})?$select=TotalPrice`)).TotalPrice;
    expect(total).toBeCloseTo(order.TotalPrice + 2 * first.UnitPrice, 2);
  });

  it("deletes one Details line by key, and it is gone from its order", async () => {
    const { salesOrderDetailApi } = client;
    const order = await anOrder();
    const [first, ...rest] = order.Details;
    const line = await execute(
      salesOrderDetailApi.requestBuilder().getByKey(first.Guid).select(salesOrderDetailApi.schema.QUANTITY),
    );
    await execute(salesOrderDetailApi.requestBuilder().delete(line));
    expect(await service.status(`SalesOrderDetail(${first.Guid})`)).toBe(404);
    const left = await service.getJson(`SalesOrder(${order.Guid})/Details?$select=Guid`);
    expect(left.value.map((l: any) => l.Guid).sort()).toEqual(rest.map((l: any) => l.Guid).sort());
  });

  it("creates an order and, asked for the representation, gets its fields back", async () => {
    const { salesOrderApi } = client;
    const [customer] = (await service.getJson("Customer?$select=Id&$top=1")).value;
    // the SDK writes a navigation property as an entity, and keeps custom fields from a property's
    // name: the customer goes as `CustomerId`, which the sample's deserialization hook reads as SellToCustomer
    const draft = salesOrderApi
      .entityBuilder()
      .docNumber("SAP-ORDER-1")
      .description("made by the SAP client")
      .withCustomFields({ CustomerId: customer.Id })
      .build();
    const mark = service.exchanges.mark();
    const order = await execute(
      salesOrderApi.requestBuilder().create(draft).addCustomHeaders({ Prefer: "return=representation" }),
    );
    const post = service.exchanges.since(mark).find((e) => e.method === "POST");
    expect(post?.responseHeaders["preference-applied"]).toBe("return=representation");
    const stored = await service.getJson(`SalesOrder(${order.guid})?$select=*`);
    expect({
      docNumber: order.docNumber,
      description: order.description,
      orderDate: order.orderDate ?? null,
      totalPrice: order.totalPrice?.toNumber(),
      status: order.status,
    }).toEqual({
      docNumber: "SAP-ORDER-1",
      description: "made by the SAP client",
      orderDate: stored.OrderDate,
      totalPrice: 0,
      status: "Open",
    });
    expect(stored.SellToCustomer).toBe(customer.Guid);
    expect(order.versionIdentifier).toEqual(expect.any(String));
  });

  it("creates with the SDK's own headers as the spec says: the Guid alone, the other fields undefined", async () => {
    const { productApi } = client;
    const mark = service.exchanges.mark();
    const created = await execute(
      productApi.requestBuilder().create(productApi.entityBuilder().sku("SAP-BARE").build()),
    );
    const post = service.exchanges.since(mark).find((e) => e.method === "POST");
    // the SDK asks for no preference
    expect(post?.requestHeaders.prefer).toBeUndefined();
    expect([created.guid, created.sku]).toEqual([expect.any(String), undefined]);
  });
});
