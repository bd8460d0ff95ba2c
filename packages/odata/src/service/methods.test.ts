import { randomUUID } from "node:crypto";
import { insertRecords, inTenant } from "@bizdata/core";
import { sampleFeatures, sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;
let full: ServiceTenant;
let bare: ServiceTenant;
const ids: Record<string, string> = {};

async function catalogue(features: readonly string[]): Promise<ServiceTenant> {
  const api = await serviceTenant("methods");
  for (const f of features) await api.enable(f);
  const post = async (entity: string, body: object) => {
    const res = await api.call("POST", `/api/${entity}`, { body });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { Guid: string };
  };
  await post("Product", { SKU: "M-1", Price: 100, Cost: 80 });
  await post("Product", { SKU: "M-2", Price: 10, Cost: 9.8 });
  await post("Customer", { Id: "MC-1" });
  await post("Customer", { Id: "MC-2" });
  ids.source = (
    await post("SalesOrder", {
      DocNumber: "MO-1",
      Description: "Source",
      SellToCustomer: "MC-1",
      Details: [
        { Product: "M-1", Quantity: 2, LineNumber: 1 },
        { Product: "M-2", Quantity: 1, LineNumber: 2 },
      ],
    })
  ).Guid;
  ids.open2 = (
    await post("SalesOrder", { DocNumber: "MO-2", SellToCustomer: "MC-1", Details: [{ Product: "M-1", Quantity: 1 }] })
  ).Guid;
  await post("SalesOrder", {
    DocNumber: "MO-3",
    SellToCustomer: "MC-1",
    Status: "Closed",
    Details: [{ Product: "M-1", Quantity: 1 }],
  });
  ids.target = (
    await post("SalesOrder", { DocNumber: "MO-4", SellToCustomer: "MC-2", Details: [{ Product: "M-2", Quantity: 5 }] })
  ).Guid;
  ids.journal = (await post("Journal", { DocNumber: "J-1", Amount: 10 })).Guid;
  ids.emptyJournal = (await post("Journal", { DocNumber: "J-2" })).Guid;
  ids.product = (await post("Product", { SKU: "M-3", Price: 50, Cost: 40 })).Guid;
  return api;
}

beforeAll(async () => {
  bare = await catalogue([]);
  const bareIds = { ...ids };
  full = await catalogue(sampleFeatures);
  Object.assign(ids, { fullTarget: ids.target, bareTarget: bareIds.target, bareSource: bareIds.source });
});

describe("method endpoints (spec 4.8)", () => {
  it("calls an instance Read method with parameters in the query string or inline, with ()", async () => {
    // order MO-1: total 2×100 + 1×10 = 210 over 3 units → 70 per unit
    const viaQuery = await full.call(
      "GET",
      `/api/SalesOrder(${ids.source})/CalculateLineTotal()?taxRate=0.1&quantity=2`,
    );
    // a scalar result's context is its type in $metadata
    expect(viaQuery.headers.get("Content-Type")).toBe("application/json;odata.metadata=minimal");
    expect(await json(viaQuery)).toEqual({ "@odata.context": "/api/$metadata#Edm.Decimal", value: 154 });
    const inline = await full.call(
      "GET",
      `/api/SalesOrder(${ids.source})/CalculateLineTotal(taxRate=0.1,quantity=2,discount=50)`,
    );
    expect(dataOf(await json(inline))).toEqual({ value: 77 });
    // with parameters the () may go (OData 4.01 implicit parameter aliases)
    const noParens = await full.call("GET", `/api/SalesOrder(${ids.source})/CalculateLineTotal?taxRate=0.1&quantity=2`);
    expect(dataOf(await json(noParens))).toEqual({ value: 154 });
    const product = await full.call("GET", `/api/Product(${ids.product})/GetDefaultMarkup()`);
    expect(dataOf(await json(product))).toEqual({ value: 25 });
  });

  it.each([
    ["a missing required parameter", "CalculateLineTotal()?taxRate=0.1", 400, "MissingParameter"],
    ["a parameter of the wrong type", "CalculateLineTotal()?taxRate=0.1&quantity=two", 400, "InvalidParameter"],
    ["an unknown parameter", "CalculateLineTotal()?taxRate=0.1&quantity=1&colour=red", 400, "UnknownParameter"],
    ["a missing required parameter without ()", "CalculateLineTotal?taxRate=0.1", 400, "MissingParameter"],
    ["an unknown method", "Nope()", 404, "NotFound"],
  ])("answers %s with %i %s", async (_, tail, status, code) => {
    const res = await full.call("GET", `/api/SalesOrder(${ids.source})/${tail}`);
    expect(res.status).toBe(status);
    expect((await json(res)).error.code).toBe(code);
  });

  it("refuses a Read method without parameters called without () (spec 4.8 rule 4), naming the fix", async () => {
    const res = await full.call("GET", `/api/Product(${ids.product})/GetDefaultMarkup`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "InvalidMethodCall",
      message: expect.stringContaining("GetDefaultMarkup()"),
    });
  });

  it("refuses the wrong verb and the wrong form", async () => {
    expect(
      (
        await full.call("POST", `/api/SalesOrder(${ids.source})/CalculateLineTotal`, {
          body: { taxRate: 0, quantity: 1 },
        })
      ).status,
    ).toBe(405);
    expect((await full.call("GET", "/api/SalesOrder/CalculateLineTotal()?taxRate=0&quantity=1")).status).toBe(400);
    expect((await full.call("GET", `/api/SalesOrder(${ids.source})/GetOpenOrders()?customerId=MC-1`)).status).toBe(400);
  });

  it("calls a static Read method returning orders, honouring $select, $filter and $expand", async () => {
    const res = await full.call(
      "GET",
      "/api/SalesOrder/GetOpenOrders()?customerId=MC-1&$select=DocNumber&$orderby=DocNumber&$expand=Details($select=Quantity)",
    );
    const body = await json(res);
    expect(body.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["MO-1", "MO-2"]);
    expect(body["@odata.context"]).toBe("/api/$metadata#SalesOrder(DocNumber,Details(Quantity))");
    expect(dataOf(body.value[1].Details)).toEqual([{ Guid: expect.any(String), Quantity: 1 }]);
    const filtered = await json(
      await full.call(
        "GET",
        "/api/SalesOrder/GetOpenOrders()?customerId='MC-1'&$filter=DocNumber eq 'MO-2'&$select=DocNumber",
      ),
    );
    expect(filtered.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["MO-2"]);
    expect(dataOf(await json(await full.call("GET", "/api/SalesOrder/GetOpenOrders()?customerId=NOBODY")))).toEqual({
      value: [],
    });
  });

  it("answers a static method's function import at the service root like the bound form", async () => {
    const bound = await json(
      await full.call("GET", "/api/SalesOrder/GetOpenOrders(customerId='MC-1')?$select=DocNumber&$orderby=DocNumber"),
    );
    for (const path of [
      "/api/GetOpenOrders(customerId='MC-1')?$select=DocNumber&$orderby=DocNumber",
      "/api/GetOpenOrders()?customerId='MC-1'&$select=DocNumber&$orderby=DocNumber",
      "/api/GetOpenOrders?customerId=MC-1&$select=DocNumber&$orderby=DocNumber",
    ]) {
      const res = await full.call("GET", path);
      expect(res.status, path).toBe(200);
      expect(dataOf(await json(res)), path).toEqual(dataOf(bound));
    }
    expect(bound.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["MO-1", "MO-2"]);
  });

  it("names the position in the import address as written when its arguments are malformed, and refuses POST", async () => {
    const res = await full.call("GET", "/api/GetOpenOrders(customerId=)");
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error).toMatchObject({ code: "QuerySyntaxError", target: "path" });
    // `GetOpenOrders(customerId=` is 25 characters: the value is missing at position 25
    expect(error.message).toMatch(/position 25\b/);
    expect((await full.call("POST", "/api/GetOpenOrders(customerId='MC-1')")).status).toBe(405);
  });

  it("calls a Modify method with a JSON body or with the query string, and it does the work", async () => {
    const viaBody = await full.call("POST", `/api/SalesOrder(${ids.fullTarget})/ReorderFrom`, {
      body: {
        salesOrderGuid: ids.source,
      },
    });
    expect(viaBody.status).toBe(204);
    const order = await json(
      await full.call(
        "GET",
        `/api/SalesOrder(${ids.fullTarget})?$select=Description,SellToCustomer,TotalPrice&$expand=Details($select=Quantity;$orderby=LineNumber)`,
      ),
    );
    expect(order.Description).toBe("Source");
    expect(order.Details.map((d: { Quantity: number }) => d.Quantity)).toEqual([2, 1]);
    expect(order.TotalPrice).toBe(210);
    const viaQuery = await bare.call(
      "POST",
      `/api/SalesOrder(${ids.bareTarget})/ReorderFrom?salesOrderGuid=${ids.bareSource}`,
    );
    expect(viaQuery.status).toBe(204);
  });

  it("blocks with AbortIf before anything runs", async () => {
    const res = await full.call("POST", `/api/SalesOrder(${ids.source})/ReorderFrom`, {
      body: {
        salesOrderGuid: ids.source,
      },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "MethodAborted",
      message: "An order cannot be reordered from itself.",
    });
    const journal = await full.call("POST", `/api/Journal(${ids.emptyJournal})/Post`);
    expect((await json(journal)).error.code).toBe("MethodAborted");
  });

  it("posts a journal: RecordReadOnly before and after, the read-only IsPosted set, then MethodDisabled", async () => {
    const read = async () =>
      json(await full.call("GET", `/api/Journal(${ids.journal})?$select=IsPosted,RecordReadOnly`));
    expect(await read()).toMatchObject({ IsPosted: false, RecordReadOnly: [] });
    expect((await full.call("POST", `/api/Journal(${ids.journal})/Post`)).status).toBe(204);
    expect(await read()).toMatchObject({ IsPosted: true, RecordReadOnly: ["Post"] });
    const again = await full.call("POST", `/api/Journal(${ids.journal})/Post`);
    expect(again.status).toBe(400);
    expect((await json(again)).error.code).toBe("MethodDisabled");
    // and RecordReadOnly on a page of records
    const page = await json(await full.call("GET", "/api/Journal?$select=DocNumber,RecordReadOnly&$orderby=DocNumber"));
    expect(page.value.map((j: { RecordReadOnly: string[] }) => j.RecordReadOnly)).toEqual([["Post"], []]);
  });

  it("gates subscribers by feature: two tenants, two behaviours; an abort in a body undoes earlier subscribers", async () => {
    const invoice = async (who: ServiceTenant, quantity: number, sku: string) => {
      const res = await who.call("POST", "/api/SalesInvoice", {
        body: {
          DocNumber: `I-${Math.random()}`,
          Details: [{ Product: sku, Quantity: quantity, UnitPrice: 1 }],
        },
      });
      return ((await res.json()) as { Guid: string }).Guid;
    };
    const prices = async (who: ServiceTenant, guid: string) =>
      (await json(await who.call("GET", `/api/SalesInvoice(${guid})?$expand=Details($select=UnitPrice)`))).Details.map(
        (d: { UnitPrice: number }) => d.UnitPrice,
      );
    const withDiscount = await invoice(full, 10, "M-1");
    const without = await invoice(bare, 10, "M-1");
    expect((await full.call("POST", `/api/SalesInvoice(${withDiscount})/UpdatePrices`)).status).toBe(204);
    expect((await bare.call("POST", `/api/SalesInvoice(${without})/UpdatePrices`)).status).toBe(204);
    expect(await prices(full, withDiscount)).toEqual([95]);
    expect(await prices(bare, without)).toEqual([100]);
    // M-2 costs 9.8: 5% off 10 is below cost, the second subscriber aborts and the first one's undo restores the price
    const belowCost = await invoice(full, 10, "M-2");
    const res = await full.call("POST", `/api/SalesInvoice(${belowCost})/UpdatePrices`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "MethodAborted",
      message: "The volume discount would sell M-2 below cost.",
    });
    expect(await prices(full, belowCost)).toEqual([1]);
  });
});

describe("method arguments and results as values (issue 11)", () => {
  // Customer Ids a spliced filter would misread: an alias, a quote, a Guid-shaped text (the sample
  // Customer.Id holds 32 characters, one short of a Guid: that one finds nobody, below)
  const tricky = ["@customerId", "O'Brien", "6F1C2D3E4B5A4C6D8E9F0A1B2C3D4E5F"];
  const OPEN = 320;
  let who: ServiceTenant;

  beforeAll(async () => {
    who = await serviceTenant("method-values");
    const customers = tricky.map((Id) => ({ Guid: randomUUID(), Id }));
    const orders = customers.flatMap((c, i) =>
      Array.from({ length: i === 0 ? OPEN : 2 }, (_, n) => ({
        Guid: randomUUID(),
        DocNumber: `MV-${i}-${String(n).padStart(3, "0")}`,
        Status: n === 1 && i > 0 ? "Closed" : "Open",
        SellToCustomer: c.Guid,
      })),
    );
    await inTenant(await testDatabase(), who.tenantId, async (tx) => {
      await insertRecords(tx, sampleModel.entity("Customer")!, who.tenantId, customers);
      await insertRecords(tx, sampleModel.entity("SalesOrder")!, who.tenantId, orders);
    });
  });

  const openOrders = async (customerId: string, options = "$select=DocNumber&$orderby=DocNumber") => {
    const res = await who.call(
      "GET",
      `/api/SalesOrder/GetOpenOrders(customerId='${encodeURIComponent(customerId.replaceAll("'", "''"))}')?${options}`,
    );
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.value.map((o: { DocNumber: string }) => o.DocNumber);
  };

  it(`answers all ${OPEN} open orders of a customer, none cut off`, async () => {
    const docs = await openOrders(tricky[0]!);
    expect(docs).toHaveLength(OPEN);
    expect(docs[0]).toBe("MV-0-000");
  });

  it.each(tricky.slice(1).map((id, i) => [id, `MV-${i + 1}-000`]))("finds the open orders of %j", async (id, doc) => {
    expect(await openOrders(id)).toEqual([doc]);
  });

  it("finds none for an Id no customer has", async () => {
    expect(await openOrders("6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f")).toEqual([]);
    expect(await openOrders("@x")).toEqual([]);
    expect(await openOrders("x' or Status eq 'Open")).toEqual([]);
  });
});
