/**
 * Context URLs and metadata levels through the service (OData Protocol 4.01 §10; JSON Format 4.01
 * §3.1, §4.5): every JSON answer starts with `@odata.context` naming what it holds — the entity set
 * and the select-list (the Guid alone when nothing is selected, which is the default projection),
 * expanded navigation properties with their own lists, `/$entity` for one record, the groups and
 * aggregates of `$apply`, a method's result type — and its Content-Type says the metadata level:
 * `none` leaves out everything but count and next link, `full` adds type, id, edit link and
 * navigation links.
 */

import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;
let api: ServiceTenant;
let product: string;
let order: string;

beforeAll(async () => {
  api = await serviceTenant("context");
  await api.call("POST", "/api/Customer", { body: { Id: "CX-1" } });
  const p = await api.call("POST", "/api/Product", {
    body: { SKU: "CX-P", Cost: 2, Price: 3, Uoms: [{ Name: "Each" }] },
  });
  product = (await json(p)).Guid;
  const o = await api.call("POST", "/api/SalesOrder", {
    body: {
      DocNumber: "CX-O",
      SellToCustomer: "CX-1",
      Details: [{ Product: "CX-P", Quantity: 2 }],
    },
  });
  order = (await json(o)).Guid;
});

const context = async (path: string, headers: Record<string, string> = {}) => {
  const res = await api.call("GET", path, { headers });
  expect(res.status, path).toBe(200);
  const body = await json(res);
  expect(Object.keys(body)[0]).toBe("@odata.context");
  return body["@odata.context"];
};

describe("@odata.context", () => {
  it.each([
    ["a collection: the Guid alone by default", "/api/Product", "Product(Guid)"],
    ["a projection", "/api/Product?$select=SKU,Cost", "Product(SKU,Cost)"],
    ["a projection with the key named", "/api/Product?$select=Guid,SKU", "Product(SKU)"],
    ["an expanded collection without options", "/api/SalesOrder?$expand=Details", "SalesOrder(Guid,Details(Guid))"],
    [
      "nested $select and $expand",
      "/api/SalesOrder?$select=DocNumber&$expand=Details($select=Quantity;$expand=Product($select=SKU)),SellToCustomer($select=Id)",
      "SalesOrder(DocNumber,Details(Quantity,Product(SKU)),SellToCustomer(Id))",
    ],
    [
      "a reference inside a complex value",
      "/api/Contact?$expand=MailingAddress/Country",
      "Contact(Guid,MailingAddress/Country(Guid))",
    ],
    ["a $compute alias", "/api/Product?$select=SKU,Margin&$compute=Price sub Cost as Margin", "Product(SKU,Margin)"],
    ["$apply: aggregates", "/api/Product?$apply=aggregate(Cost with sum as Total)", "Product(Total)"],
    [
      "$apply: groups through a navigation path, then aggregates",
      "/api/SalesOrderDetail?$apply=groupby((SalesOrder/Status,Product/SKU),aggregate(Quantity with sum as Q))",
      "SalesOrderDetail(SalesOrder(Status),Product(SKU),Q)",
    ],
    [
      "owned items, in their own entity set whichever address read them",
      "/api/SalesOrderDetail?$select=Quantity",
      "SalesOrderDetail(Quantity)",
    ],
    [
      "a static method's collection",
      "/api/SalesOrder/GetOpenOrders()?customerId=CX-1&$select=DocNumber",
      "SalesOrder(DocNumber)",
    ],
  ])("of %s", async (_, path, fragment) => {
    expect(await context(path)).toBe(`/api/$metadata#${fragment}`);
  });

  it("of one record, with /$entity, for reads and writes alike", async () => {
    expect(await context(`/api/Product(${product})?$select=SKU`)).toBe("/api/$metadata#Product(SKU)/$entity");
    expect(await context(`/api/SalesOrderDetail?$top=1`)).toBe("/api/$metadata#SalesOrderDetail(Guid)");
    const created = await json(await api.call("POST", "/api/Product?$select=SKU,Cost", { body: { SKU: "CX-2" } }));
    expect(created["@odata.context"]).toBe("/api/$metadata#Product(SKU,Cost)/$entity");
    const patched = await json(
      await api.call("PATCH", `/api/Product(${created.Guid})?$expand=Uoms`, { body: { Cost: 1 } }),
    );
    expect(patched["@odata.context"]).toBe("/api/$metadata#Product(Guid,Uoms(Guid))/$entity");
  });

  it("of a method's scalar result: its type", async () => {
    expect(await context(`/api/Product(${product})/GetDefaultMarkup()`)).toBe("/api/$metadata#Edm.Decimal");
    expect(await context(`/api/SalesOrder(${order})/CalculateLineTotal()?taxRate=0&quantity=1`)).toBe(
      "/api/$metadata#Edm.Decimal",
    );
  });

  it("of each $batch part, while the batch envelope itself has none", async () => {
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: [
          { id: "1", method: "GET", url: "Product?$select=SKU" },
          { id: "2", method: "GET", url: `Product(${product})` },
        ],
      },
    });
    const body = await json(res);
    expect(Object.keys(body)).toEqual(["responses"]);
    expect(body.responses.map((r: any) => r.body["@odata.context"])).toEqual([
      "/api/$metadata#Product(SKU)",
      "/api/$metadata#Product(Guid)/$entity",
    ]);
    expect(body.responses[0].headers["content-type"]).toBe("application/json;odata.metadata=minimal");
  });

  it("of a workflow step's answer, after which its prompts follow", async () => {
    const wf = await json(await api.call("POST", "/api/workflow"));
    const res = await api.call("GET", `/api/Product(${product})?$select=SKU`, {
      headers: {
        "Workflow-Id": wf.workflowId,
        "Workflow-Index": "1",
      },
    });
    expect((await json(res))["@odata.context"]).toBe("/api/$metadata#Product(SKU)/$entity");
    await api.call("DELETE", `/api/workflow/${wf.workflowId}`);
  });
});

describe("metadata levels", () => {
  const read = (headers: Record<string, string>, query = "") =>
    api.call("GET", `/api/Product?$filter=SKU eq 'CX-P'&$select=SKU&$expand=Uoms($select=Name)${query}`, { headers });

  it("answers minimal by default and says so in the Content-Type: context and ETags only", async () => {
    const res = await read({});
    expect(res.headers.get("Content-Type")).toBe("application/json;odata.metadata=minimal");
    const body = await json(res);
    expect(Object.keys(body)).toEqual(["@odata.context", "value"]);
    expect(Object.keys(body.value[0])).toEqual(["@odata.etag", "Guid", "SKU", "Uoms"]);
    expect(Object.keys(body.value[0].Uoms[0])).toEqual(["@odata.etag", "Guid", "Name"]);
  });

  it.each([
    ["Accept with the 4.0 name", { Accept: "application/json;odata.metadata=none" }, ""],
    ["Accept with the 4.01 name", { Accept: "application/json;metadata=none" }, ""],
    ["$format", {}, "&$format=application/json;odata.metadata=none"],
    [
      "$format over Accept",
      { Accept: "application/json;odata.metadata=full" },
      "&$format=application/json;odata.metadata=none",
    ],
  ])("leaves all control information out with metadata=none in %s, keeping the count", async (_, headers, query) => {
    const res = await read(headers, `&$count=true${query}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json;odata.metadata=none");
    const body = await json(res);
    expect(body).toEqual({
      "@odata.count": 1,
      value: [{ Guid: product, SKU: "CX-P", Uoms: [{ Guid: expect.any(String), Name: "Each" }] }],
    });
  });

  it("keeps the ETag header of a single record at metadata=none", async () => {
    const res = await api.call("GET", `/api/Product(${product})`, {
      headers: {
        Accept: "application/json;odata.metadata=none",
      },
    });
    expect(res.headers.get("ETag")).toBe('W/"1"');
    expect(await json(res)).toEqual({ Guid: product });
  });

  it("keeps the next link at metadata=none, and the $format in it", async () => {
    const res = await api.call("GET", "/api/Product?$format=application/json;odata.metadata=none&$top=2");
    const body = await json(res);
    expect(Object.keys(body)).toEqual(["value"]);
    const bulk = Array.from({ length: 50 }, (_, i) => ({
      id: `b${i}`,
      method: "POST",
      url: "Product",
      body: { SKU: `CX-N${i}` },
    }));
    await api.call("POST", "/api/$batch", { body: { requests: bulk } });
    const page = await json(await api.call("GET", "/api/Product?$format=application/json;odata.metadata=none"));
    expect(page["@odata.nextLink"]).toContain("format=application%2Fjson%3Bodata.metadata%3Dnone");
    expect(Object.keys(page)).toEqual(["value", "@odata.nextLink"]);
    const next = await api.call("GET", page["@odata.nextLink"]);
    expect(next.headers.get("Content-Type")).toBe("application/json;odata.metadata=none");
  });

  it("adds type, id, edit link and navigation links with metadata=full", async () => {
    const res = await read({ Accept: "application/json;odata.metadata=full" });
    expect(res.headers.get("Content-Type")).toBe("application/json;odata.metadata=full");
    const [item] = (await json(res)).value;
    expect(item).toEqual({
      "@odata.type": "#bizdata.Product",
      "@odata.id": `Product(${product})`,
      "@odata.etag": 'W/"1"',
      "@odata.editLink": `Product(${product})`,
      Guid: product,
      SKU: "CX-P",
      Uoms: [
        {
          "@odata.type": "#bizdata.ProductUom",
          "@odata.id": expect.stringMatching(/^ProductUom\([0-9a-f-]{36}\)$/),
          "@odata.etag": 'W/"1"',
          "@odata.editLink": expect.stringMatching(/^ProductUom\([0-9a-f-]{36}\)$/),
          Guid: expect.any(String),
          Name: "Each",
          "Product@odata.navigationLink": expect.stringMatching(/^ProductUom\([0-9a-f-]{36}\)\/Product$/),
        },
      ],
      "Uoms@odata.navigationLink": `Product(${product})/Uoms`,
    });
  });

  it("adds the same for an expanded reference, and on a single record", async () => {
    const res = await api.call(
      "GET",
      `/api/SalesOrder(${order})?$select=DocNumber&$expand=SellToCustomer($select=Id)`,
      {
        headers: {
          Accept: "application/json;odata.metadata=full",
        },
      },
    );
    const body = await json(res);
    expect(body["@odata.context"]).toBe("/api/$metadata#SalesOrder(DocNumber,SellToCustomer(Id))/$entity");
    expect(body["@odata.id"]).toBe(`SalesOrder(${order})`);
    expect(body["SellToCustomer@odata.navigationLink"]).toBe(`SalesOrder(${order})/SellToCustomer`);
    expect(body["Details@odata.navigationLink"]).toBe(`SalesOrder(${order})/Details`);
    expect(body.SellToCustomer).toMatchObject({ "@odata.type": "#bizdata.Customer", Id: "CX-1" });
  });

  it.each([
    ["a metadata level that does not exist", { Accept: "application/json;odata.metadata=verbose" }, "", "Accept"],
    ["$format naming another format", {}, "?$format=xml", "$format"],
    ["$format with a metadata level that does not exist", {}, "?$format=application/json;metadata=some", "$format"],
  ])("answers 406 NotAcceptable for %s, naming where", async (_, headers, query, target) => {
    const res = await api.call("GET", `/api/Product${query}`, { headers });
    expect(res.status).toBe(406);
    expect((await json(res)).error).toMatchObject({ code: "NotAcceptable", target });
  });

  it("takes the preferred JSON range of Accept, and $format=json as minimal", async () => {
    const preferred = await read({
      Accept: "application/json;odata.metadata=full;q=0.5, application/json;odata.metadata=none",
    });
    expect(preferred.headers.get("Content-Type")).toBe("application/json;odata.metadata=none");
    const json_ = await read({}, "&$format=json");
    expect(json_.headers.get("Content-Type")).toBe("application/json;odata.metadata=minimal");
    const decimals = await read({}, "&$format=application/json;IEEE754Compatible=true");
    expect(decimals.headers.get("Content-Type")).toBe("application/json;odata.metadata=minimal;IEEE754Compatible=true");
  });
});
