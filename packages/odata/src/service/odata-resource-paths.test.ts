/**
 * Resource paths as OData clients write them (issue 13), through the service against the hand-made
 * data set of test/query-fixture.ts: keys as `(Guid=…)` wherever `(…)` works, `%2F` inside a key or
 * parameter value against a raw `/`, operations qualified by the model's namespace, and navigation
 * from a record to what it refers to, owns or holds.
 */

import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
let fixture: LoadedFixture;
const MISSING = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  api = await serviceTenant("paths");
  fixture = await loadFixture(api, await testDatabase());
});

async function send(method: string, path: string, body?: unknown) {
  const res = await api.call(method, path, { body });
  const text = await res.text();
  let json: any = text;
  try {
    // about the data: the control information (context, ETags) is asserted elsewhere
    json = dataOf(JSON.parse(text));
  } catch {}
  return { status: res.status, body: json, headers: res.headers };
}
const get = (path: string) => send("GET", path);

const order = (doc: string) => fixture.guids.SalesOrder![doc]!;
const contact = (email: string) => fixture.guids.Contact![email]!;
const q = encodeURIComponent;

describe("keys as (Guid=…)", () => {
  it.each([
    (g: string) => `(${g})`,
    (g: string) => `(${g.toUpperCase()})`,
    (g: string) => `(Guid=${g})`,
    (g: string) => `(Guid=${g.toUpperCase()})`,
    (g: string) => `(Guid=guid'${g}')`,
    (g: string) => `(guid'${g}')`,
  ])("read: SalesOrder%s", async (key) => {
    const { status, body } = await get(`/api/SalesOrder${key(order("SO-002"))}?$select=DocNumber`);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({ Guid: order("SO-002"), DocNumber: "SO-002" });
  });

  it("PATCH, DELETE and method calls take it too", async () => {
    const created = await send("POST", "/api/Journal", { DocNumber: "J-KEY", Amount: 5 });
    const guid = created.body.Guid;
    const patched = await send("PATCH", `/api/Journal(Guid=${guid})?$select=Description`, { Description: "keyed" });
    expect([patched.status, patched.body]).toEqual([200, { Guid: guid, Description: "keyed" }]);
    expect((await send("POST", `/api/Journal(Guid=${guid})/Post`)).status).toBe(204);
    expect((await get(`/api/Journal(Guid=${guid})?$select=IsPosted`)).body.IsPosted).toBe(true);
    const markup = await get(`/api/Product(Guid=${fixture.guids.Product!["WID-001"]})/GetDefaultMarkup()`);
    expect([markup.status, markup.body]).toEqual([200, { value: 100 }]);
    expect((await send("DELETE", `/api/Journal(Guid=${guid})`)).status).toBe(204);
    expect((await get(`/api/Journal(Guid=${guid})`)).status).toBe(404);
  });

  it("in batch part URLs", async () => {
    const customer = fixture.guids.Customer!.C002!;
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: [
          { id: "r", method: "GET", url: `SalesOrder(Guid=${order("SO-001")})?$select=DocNumber` },
          {
            id: "w",
            atomicityGroup: "g",
            method: "PATCH",
            url: `Customer(Guid=${customer})?$select=CreditLimit`,
            body: { CreditLimit: 600 },
          },
          { id: "n", method: "GET", url: `SalesOrder(Guid=${order("SO-001")})/Details/$count` },
          { id: "m", method: "GET", url: `SalesOrder/bizdata.GetOpenOrders(customerId='C002')?$select=DocNumber` },
        ],
      },
    });
    const { responses } = (await res.json()) as { responses: { id: string; status: number; body: unknown }[] };
    expect(responses.map((r) => [r.id, r.status, dataOf(r.body)])).toEqual([
      ["r", 200, { Guid: order("SO-001"), DocNumber: "SO-001" }],
      ["w", 200, { Guid: customer, CreditLimit: 600 }],
      ["n", 200, "3"],
      ["m", 200, { value: [{ Guid: order("SO-002"), DocNumber: "SO-002" }] }],
    ]);
  });

  it.each([
    ["SalesOrder(DocNumber='SO-001')", 400, "InvalidKey", `"DocNumber" is not the key of SalesOrder`],
    ["SalesOrder(guid=%s)", 400, "InvalidKey", `did you mean "Guid"?`],
    ["SalesOrder(Guid=%s,Guid=%s)", 400, "QuerySyntaxError", "'Guid' is repeated"],
    ["SalesOrder(Guid=%s,Id=1)", 400, "InvalidKey", "SalesOrder is addressed by one key, its Guid"],
    ["SalesOrder()", 400, "InvalidKey", "SalesOrder is addressed by one key, its Guid"],
    ["SalesOrder(Guid='SO-001')", 400, "InvalidKey", `The key "SO-001" is not a Guid.`],
    ["SalesOrder(Guid=1)", 400, "InvalidKey", `The key "1" is not a Guid.`],
    ["SalesOrder(Guid=)", 400, "QuerySyntaxError", "expected a literal value but found ')'"],
  ])("%s → %d %s", async (path, status, code, message) => {
    const { status: got, body } = await get(`/api/${path.replaceAll("%s", order("SO-001"))}`);
    expect(got, JSON.stringify(body)).toBe(status);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain(message);
  });

  it("a PATCH or DELETE by an unknown key name is refused before anything is written", async () => {
    for (const method of ["PATCH", "DELETE"]) {
      const { status, body } = await send(
        method,
        `/api/Customer(Id='C001')`,
        method === "PATCH" ? { Name: "x" } : undefined,
      );
      expect(status).toBe(400);
      expect(body.error.message).toContain(`"Id" is not the key of Customer`);
    }
    expect((await get(`/api/Customer?$filter=Id eq 'C001'&$select=Name`)).body.value[0].Name).toBe("Acme");
  });
});

describe("a '/' in a key or parameter value: %2F is data, a raw '/' separates segments", () => {
  beforeAll(async () => {
    expect((await send("POST", "/api/Customer", { Id: "C/01", Name: "Slash" })).status).toBe(201);
    const res = await send("POST", "/api/SalesOrder", { DocNumber: "SO-/1", SellToCustomer: "C/01", Status: "Open" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it.each([
    "/api/SalesOrder/GetOpenOrders(customerId='C%2F01')?$select=DocNumber",
    "/api/SalesOrder/GetOpenOrders(customerId='C%2f01')?$select=DocNumber",
    "/api/SalesOrder/GetOpenOrders()?customerId=C%2F01&$select=DocNumber",
    `/api/SalesOrder/bizdata.GetOpenOrders(customerId=${q("'C/01'")})?$select=DocNumber`,
  ])("%s", async (path) => {
    const { status, body } = await get(path);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["SO-/1"]);
  });

  it("a raw '/' inside a quoted value splits the segment, and the message says how to write it", async () => {
    const { status, body } = await get("/api/SalesOrder/GetOpenOrders(customerId='C/01')");
    expect(status).toBe(400);
    expect(body.error.code).toBe("QuerySyntaxError");
    expect(body.error.message).toContain(
      "in path at position 36: unterminated string literal; a '/' inside a quoted value is written %2F",
    );
  });

  it.each([
    ["/api/Customer('C%2F01')", 400, `The key "C/01" is not a Guid.`],
    ["/api/SalesOrder%2F$count", 400, "expected end of input but found '/'"],
    ["/api/Customer('100%')", 400, "malformed percent-encoding"],
  ])("%s → %d", async (path, status, message) => {
    const { status: got, body } = await get(path);
    expect(got).toBe(status);
    expect(body.error.message).toContain(message);
  });
});

describe("operations qualified by the namespace", () => {
  it("a bound action: Journal(…)/bizdata.Post", async () => {
    const { body } = await send("POST", "/api/Journal", { DocNumber: "J-NS", Amount: 1 });
    expect((await send("POST", `/api/Journal(${body.Guid})/bizdata.Post`)).status).toBe(204);
    expect((await get(`/api/Journal(${body.Guid})?$select=IsPosted,RecordReadOnly`)).body).toEqual({
      Guid: body.Guid,
      IsPosted: true,
      RecordReadOnly: ["Post"],
    });
  });

  it.each([
    "/api/SalesOrder/bizdata.GetOpenOrders(customerId='C001')?$select=DocNumber&$orderby=DocNumber",
    "/api/SalesOrder/GetOpenOrders(customerId='C001')?$select=DocNumber&$orderby=DocNumber",
  ])("a bound function on the collection: %s", async (path) => {
    const { status, body } = await get(path);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["SO-001"]);
  });

  it("a bound function on a record", async () => {
    const path = `/api/SalesOrder(${order("SO-001")})/bizdata.CalculateLineTotal(taxRate=0.1,quantity=2)`;
    const { status, body } = await get(path);
    expect([status, typeof body.value]).toEqual([200, "number"]);
  });

  it.each([
    ["/api/SalesOrder/acme.GetOpenOrders(customerId='C001')", 404, `There is no operation "acme.GetOpenOrders"`],
    ["/api/SalesOrder/Bizdata.GetOpenOrders(customerId='C001')", 404, `qualified by "bizdata"`],
    ["/api/SalesOrder/bizdata.Nope()", 404, `SalesOrder has no method "Nope"`],
    ["/api/SalesOrder/Nope()", 404, `SalesOrder has no method "Nope"`],
    [`/api/SalesOrder(${MISSING})/Nope`, 404, `SalesOrder has no navigation property or method "Nope"`],
    [`/api/SalesOrder(${MISSING})/bizdata.Details`, 404, `SalesOrder has no method "Details"`],
    ["/api/bizdata.SalesOrder", 404, `There is no entity set "bizdata.SalesOrder"`],
    ["/api/SalesOrder/bizdata.GetOpenOrders(customerId='C001')/x", 400, "Nothing can follow the method"],
  ])("%s → %d naming it", async (path, status, message) => {
    const { status: got, body } = await get(path);
    expect(got).toBe(status);
    expect(body.error.message).toContain(message);
  });
});

describe("navigation from a record", () => {
  it("to a referenced record, shaped by $select, $expand and $compute", async () => {
    const { status, body } = await get(
      `/api/SalesOrder(${order("SO-001")})/SellToCustomer?$select=Id,Name,Limit&$compute=CreditLimit as Limit&$expand=PrimaryContact($select=FullName)`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({
      Guid: fixture.guids.Customer!.C001,
      Id: "C001",
      Name: "Acme",
      Limit: 1000,
      PrimaryContact: { Guid: contact("ann@example.com"), FullName: "Ann Able" },
    });
  });

  it("through references, and through a complex value", async () => {
    const us = fixture.guids.Country!.US;
    const chain = await get(`/api/SalesOrder(${order("SO-002")})/SellToCustomer/PrimaryContact?$select=Email`);
    expect(chain.body).toEqual({ Guid: contact("bob@example.com"), Email: "bob@example.com" });
    const country = await get(
      `/api/Customer(${fixture.guids.Customer!.C001})/PrimaryContact/MailingAddress/Country?$select=Code`,
    );
    expect(country.body).toEqual({ Guid: us, Code: "US" });
  });

  it("to a complex value", async () => {
    const { status, body, headers } = await get(`/api/Contact(${contact("ann@example.com")})/MailingAddress`);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(body).toEqual({
      Street: "1 Main St",
      City: "Philadelphia",
      State: "PA",
      PostalCode: "19103",
      Country: fixture.guids.Country!.US,
    });
    const empty = await get(`/api/Contact(${contact("eve@example.com")})/MailingAddress`);
    expect(empty.body).toEqual({ Street: null, City: null, State: null, PostalCode: null, Country: null });
    const through = await get(`/api/Customer(${fixture.guids.Customer!.C003})/PrimaryContact/MailingAddress`);
    expect(through.body).toMatchObject({ City: "Toronto", Country: fixture.guids.Country!.CA });
  });

  it("a reference that leads nowhere is 204; a record that does not exist is 404", async () => {
    expect((await get(`/api/SalesOrder(${order("SO-006")})/SellToCustomer`)).status).toBe(204);
    expect((await get(`/api/Contact(${contact("dee@example.com")})/MailingAddress/Country`)).status).toBe(204);
    expect((await get(`/api/Customer(${fixture.guids.Customer!.C005})/PrimaryContact/MailingAddress`)).status).toBe(
      204,
    );
    for (const path of ["SellToCustomer", "SellToCustomer/PrimaryContact", "Details", "Details/$count"]) {
      const { status, body } = await get(`/api/SalesOrder(${MISSING})/${path}`);
      expect(status, path).toBe(404);
      expect(body.error.message).toBe(`SalesOrder(${MISSING}) does not exist.`);
    }
    expect((await get(`/api/Contact(${MISSING})/MailingAddress`)).status).toBe(404);
  });

  it("to an owned collection, with $filter, $select, $orderby, $top, $skip, $expand and $count", async () => {
    const { status, body } = await get(
      `/api/SalesOrder(${order("SO-005")})/Details?$filter=${q("Quantity gt 1")}&$select=LineNumber,Quantity&$orderby=Quantity desc&$top=2&$skip=1&$count=true&$expand=Product($select=SKU)`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body["@odata.count"]).toBe(3);
    expect(body.value.map((d: any) => [d.LineNumber, d.Quantity, d.Product.SKU])).toEqual([
      [4, 4, "GAD-100"],
      [2, 2, "ÜBER-1"],
    ]);
  });

  it("an empty collection, and its count", async () => {
    expect((await get(`/api/SalesOrder(${order("SO-004")})/Details`)).body).toEqual({ value: [] });
    expect((await get(`/api/SalesOrder(${order("SO-004")})/Details?$count=true`)).body).toEqual({
      "@odata.count": 0,
      value: [],
    });
    const count = await get(`/api/SalesOrder(${order("SO-004")})/Details/$count`);
    expect([count.status, count.body]).toEqual([200, 0]);
  });

  it("$count of a collection honours $filter", async () => {
    const res = await api.call(
      "GET",
      `/api/SalesOrder(${order("SO-005")})/Details/$count?$filter=${q("Quantity ge 4")}`,
    );
    expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([200, "text/plain", "2"]);
  });

  it("a long collection is paged, the next link on the same path", async () => {
    const lines = Array.from({ length: 52 }, (_, i) => ({
      LineNumber: i + 1,
      Product: "BOLT-9",
      Quantity: 1,
      UnitPrice: 1,
    }));
    const created = await send("POST", "/api/SalesOrder", {
      DocNumber: "SO-LONG",
      SellToCustomer: "C001",
      Details: lines,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/api/SalesOrder(${created.body.Guid})/Details`;
    const first = await get(`${path}?$select=LineNumber&$orderby=LineNumber`);
    expect(first.body.value).toHaveLength(50);
    const next = new URL(first.body["@odata.nextLink"], "http://host");
    expect(next.pathname).toBe(path);
    const second = await get(`${next.pathname}${next.search}`);
    expect(second.body.value.map((d: { LineNumber: number }) => d.LineNumber)).toEqual([51, 52]);
  });

  it.each([
    [
      `SalesOrder(%o)/DocNumber`,
      400,
      "SalesOrder.DocNumber is a value, not a related record: read it with $select=DocNumber",
    ],
    [`SalesOrder(%o)/RecordReadOnly`, 404, `SalesOrder has no navigation property or method "RecordReadOnly"`],
    [`Contact(%c)/FullName`, 400, "Contact.FullName is a computed property"],
    [`Contact(%c)/MailingAddress/City`, 400, "Contact.MailingAddress/City is a value"],
    [`Contact(%c)/MailingAddress/Nope`, 404, `Contact.MailingAddress has no navigation property "Nope"`],
    [`Contact(%c)/MailingAddress?$select=City`, 400, "Contact.MailingAddress is a complex value"],
    [`SalesOrder(%o)/sellToCustomer`, 404, `did you mean "SellToCustomer"?`],
    [`SalesOrder(%o)/SellToCustomer/$count`, 400, "'$count' applies to a collection"],
    [`SalesOrder(%o)/SellToCustomer(%o)`, 400, "SalesOrder.SellToCustomer takes no key"],
    [`SalesOrder(%o)/Details(%o)`, 404, "SalesOrder(%o)/Details has no item %o."],
    [`SalesOrder(%o)/Details/LineNumber`, 400, "Only '$count' can follow the collection SalesOrder.Details"],
    [`SalesOrder(%o)/SellToCustomer?$filter=${q("Nope eq 1")}`, 400, `Customer has no property "Nope"`],
    [`SalesOrder(%o)/Details?$select=Nope`, 400, `SalesOrderDetail has no property "Nope"`],
  ])("%s → %d", async (path, status, message) => {
    const url = `/api/${path.replaceAll("%o", order("SO-001")).replaceAll("%c", contact("ann@example.com"))}`;
    const { status: got, body } = await get(url);
    expect(got, JSON.stringify(body)).toBe(status);
    expect(body.error.message).toContain(message.replaceAll("%o", order("SO-001")));
  });

  it.each(["PATCH", "DELETE", "POST"])("%s on a navigation is 405", async (method) => {
    const { status } = await send(
      method,
      `/api/SalesOrder(${order("SO-001")})/SellToCustomer`,
      method === "DELETE" ? undefined : {},
    );
    expect(status).toBe(405);
  });
});
