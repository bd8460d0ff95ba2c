/**
 * The OData query language through the service (spec 4.4, 7; api-conventions: Reads, Errors),
 * against the hand-made data set of test/query-fixture.ts, so every expected answer below is worked
 * out by hand from that file.
 */

import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
let fixture: LoadedFixture;

beforeAll(async () => {
  api = await serviceTenant("query");
  fixture = await loadFixture(api, await testDatabase());
});

const guid = (entity: string, key: string) => fixture.guids[entity]![key]!;

/** `/api/Product?$filter=…&$select=…` with every option value URL-encoded */
const url = (resource: string, options: Record<string, string> = {}) => {
  const search = new URLSearchParams(options).toString();
  return `/api/${resource}${search ? `?${search}` : ""}`;
};

/** keys that occur twice in one object of a JSON text (JSON.parse would silently keep the last) */
function duplicateKeys(text: string): string[] {
  const duplicates: string[] = [];
  const objects: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{") objects.push(new Set());
    else if (c === "[") objects.push(null);
    else if (c === "}" || c === "]") objects.pop();
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      let next = end + 1;
      while (/\s/.test(text[next] ?? "")) next++;
      const keys = objects.at(-1);
      if (text[next] === ":" && keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) duplicates.push(key);
        keys.add(key);
      }
      i = end;
    }
  }
  return duplicates;
}

async function get(resource: string, options: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await api.call("GET", url(resource, options));
  const text = await res.text();
  expect(duplicateKeys(text), text).toEqual([]);
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/** a 200's payload, its control information aside (context-urls.test.ts and etags.test.ts are about that) */
async function ok(resource: string, options: Record<string, string> = {}): Promise<any> {
  const { status, body } = await get(resource, options);
  expect(status, JSON.stringify(body)).toBe(200);
  return dataOf(body);
}

const keyOf: Record<string, string> = { Product: "SKU", SalesOrder: "DocNumber", Customer: "Id", Contact: "Email" };

/** the natural keys of the records a filter returns, sorted */
async function filtered(entity: string, filter: string): Promise<string[]> {
  const key = keyOf[entity]!;
  const body = await ok(entity, { $filter: filter, $select: key });
  return body.value.map((r: Record<string, string>) => r[key]).sort();
}

/** the natural keys in the order the server returned them */
async function ordered(entity: string, options: Record<string, string>): Promise<string[]> {
  const key = keyOf[entity]!;
  const body = await ok(entity, { $select: key, ...options });
  return body.value.map((r: Record<string, string>) => r[key]);
}

async function error(resource: string, options: Record<string, string>) {
  const { status, body } = await get(resource, options);
  expect(status, JSON.stringify(body)).toBe(400);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error.message).toBe("string");
  return body.error as { code: string; message: string; target?: string };
}

const sorted = (items: readonly string[]) => [...items].sort();

const ALL_PRODUCTS = ["WID-001", "WID-002", "GAD-100", "GAD_200", "BOLT-9", "ÜBER-1", "PCT%OFF"];
const ALL_ORDERS = ["SO-001", "SO-002", "SO-003", "SO-004", "SO-005", "SO-006"];
const except = (all: readonly string[], ...out: string[]) => all.filter((k) => !out.includes(k));

describe("spec 4.4 examples", () => {
  it("filters through reference and complex paths: Customer?$filter=PrimaryContact/MailingAddress/State eq 'PA'", async () => {
    expect(await filtered("Customer", "PrimaryContact/MailingAddress/State eq 'PA'")).toEqual(["C001", "C004"]);
  });

  it("selects only Guid without $select, the named properties with it", async () => {
    const bare = await ok("Product", { $filter: "SKU eq 'WID-001'" });
    expect(bare).toEqual({ value: [{ Guid: guid("Product", "WID-001") }] });
    const selected = await ok("Product", { $filter: "SKU eq 'WID-001'", $select: "SKU,Cost,Price" });
    expect(selected.value).toEqual([{ Guid: guid("Product", "WID-001"), SKU: "WID-001", Cost: 2.5, Price: 5 }]);
    const reference = await ok("Customer", { $filter: "Id eq 'C001'", $select: "Id,PrimaryContact" });
    expect(reference.value).toEqual([
      { Guid: guid("Customer", "C001"), Id: "C001", PrimaryContact: guid("Contact", "ann@example.com") },
    ]);
  });

  it("expands a collection with nested $select and $expand: Details($select=Quantity;$expand=Product($select=SKU))", async () => {
    const body = await ok("SalesOrder", {
      $filter: "DocNumber eq 'SO-001'",
      $select: "DocNumber",
      $expand: "Details($select=Quantity;$expand=Product($select=SKU))",
    });
    expect(body.value).toHaveLength(1);
    const order = body.value[0];
    expect(Object.keys(order)).toEqual(["Guid", "DocNumber", "Details"]);
    const lines = [...order.Details].sort((a: any, b: any) => a.Quantity - b.Quantity);
    expect(lines).toEqual([
      { Guid: expect.any(String), Quantity: 1, Product: { Guid: guid("Product", "WID-002"), SKU: "WID-002" } },
      { Guid: expect.any(String), Quantity: 2, Product: { Guid: guid("Product", "WID-001"), SKU: "WID-001" } },
      { Guid: expect.any(String), Quantity: 3, Product: { Guid: guid("Product", "GAD-100"), SKU: "GAD-100" } },
    ]);
  });

  it("expands a reference: PrimaryContact($select=FirstName), null when there is none", async () => {
    const body = await ok("Customer", {
      $filter: "Id in ('C001','C005')",
      $orderby: "Id",
      $select: "Id",
      $expand: "PrimaryContact($select=FirstName)",
    });
    expect(body.value).toEqual([
      {
        Guid: guid("Customer", "C001"),
        Id: "C001",
        PrimaryContact: { Guid: guid("Contact", "ann@example.com"), FirstName: "Ann" },
      },
      { Guid: guid("Customer", "C005"), Id: "C005", PrimaryContact: null },
    ]);
  });

  it("expands a reference inside a complex value: MailingAddress/Country, in place of its Guid", async () => {
    const body = await ok("Contact", {
      $filter: "Email in ('ann@example.com','dee@example.com')",
      $orderby: "Email",
      $select: "MailingAddress",
      $expand: "MailingAddress/Country($select=Name)",
    });
    expect(body.value.map((c: any) => c.MailingAddress)).toEqual([
      {
        Street: "1 Main St",
        City: "Philadelphia",
        State: "PA",
        PostalCode: "19103",
        Country: { Guid: guid("Country", "US"), Name: "United States" },
      },
      { Street: null, City: "Pittsburgh", State: "PA", PostalCode: null, Country: null },
    ]);
  });

  it("writes an expanded reference inside a complex value once, also in an expanded reference", async () => {
    const body = await ok("Customer", {
      $filter: "Id eq 'C002'",
      $select: "Id",
      $expand: "PrimaryContact($select=MailingAddress/City;$expand=MailingAddress/Country($select=Code))",
    });
    expect(body.value[0].PrimaryContact.MailingAddress).toEqual({
      Street: null,
      City: "New York",
      State: "NY",
      PostalCode: null,
      Country: { Guid: guid("Country", "US"), Code: "US" },
    });
    const bare = await ok("Contact", { $filter: "Email eq 'eve@example.com'", $expand: "MailingAddress/Country" });
    expect(bare.value[0]).toEqual({ Guid: guid("Contact", "eve@example.com"), MailingAddress: { Country: null } });
  });

  it("applies $filter, $orderby, $skip, $top and $count inside a collection expand (Details@odata.count before paging)", async () => {
    const body = await ok("SalesOrder", {
      $filter: "DocNumber eq 'SO-005'",
      $select: "DocNumber",
      $expand:
        "Details($filter=Quantity gt 1;$orderby=Quantity desc;$skip=1;$top=2;$count=true;$select=LineNumber,Quantity)",
    });
    const [order] = body.value;
    // Quantities 5, 2, 1, 4 → gt 1: 5, 2, 4 (3 lines) → desc: 5, 4, 2 → skip 1, top 2: 4, 2
    expect(order["Details@odata.count"]).toBe(3);
    expect(order.Details.map((d: any) => [d.LineNumber, d.Quantity])).toEqual([
      [4, 4],
      [2, 2],
    ]);
  });

  it("counts a collection expand whose $filter walks a reference path", async () => {
    const body = await ok("SalesOrder", {
      $filter: "DocNumber in ('SO-001','SO-005')",
      $orderby: "DocNumber",
      $select: "DocNumber",
      $expand:
        "Details($filter=Product/SKU eq 'WID-001' or Product/Cost eq null;$count=true;$orderby=Product/SKU;$select=Quantity)",
    });
    expect(body.value.map((o: any) => [o["Details@odata.count"], o.Details.map((d: any) => d.Quantity)])).toEqual([
      [2, [3, 2]],
      [2, [4, 1]],
    ]);
  });

  it("expands several levels and several collections inside a collection", async () => {
    const body = await ok("SalesOrder", {
      $filter: "DocNumber eq 'SO-002'",
      $select: "DocNumber",
      $expand:
        "Details($orderby=LineNumber;$select=LineNumber;$expand=Product($select=SKU;$expand=Uoms($select=Name,Factor;$orderby=Name)))",
    });
    expect(
      body.value[0].Details.map((d: any) => ({ line: d.LineNumber, sku: d.Product.SKU, uoms: d.Product.Uoms })),
    ).toEqual([
      {
        line: 1,
        sku: "WID-001",
        uoms: [
          { Guid: expect.any(String), Name: "Box", Factor: 12 },
          { Guid: expect.any(String), Name: "Each", Factor: 1 },
        ],
      },
      { line: 2, sku: "BOLT-9", uoms: [{ Guid: expect.any(String), Name: "Bag", Factor: 50 }] },
    ]);
  });

  it("pages with $top/$skip and counts with $count=true (the filtered count, before paging)", async () => {
    const body = await ok("SalesOrder", {
      $orderby: "DocNumber",
      $top: "2",
      $skip: "1",
      $count: "true",
      $select: "DocNumber",
    });
    expect(body["@odata.count"]).toBe(6);
    expect(body.value.map((o: any) => o.DocNumber)).toEqual(["SO-002", "SO-003"]);
    const empty = await ok("SalesOrder", { $filter: "Status eq 'Open'", $count: "true", $skip: "10" });
    expect(empty).toEqual({ "@odata.count": 3, value: [] });
    const count = await api.call("GET", url("SalesOrder/$count", { $filter: "Status eq 'Open'" }));
    expect(await count.text()).toBe("3");
  });

  it("combines every option with &", async () => {
    const body = await ok("SalesOrder", {
      $filter: "Status eq 'Open' and SellToCustomer/PrimaryContact/MailingAddress/Country/Code eq 'US'",
      $orderby: "DocNumber desc",
      $top: "1",
      $count: "true",
      $compute: "Details/$count as Lines",
      $select: "DocNumber,Lines",
      $expand:
        "Details($select=Quantity;$orderby=Quantity),SellToCustomer($select=Id;$expand=PrimaryContact($select=FullName))",
    });
    expect(body).toEqual({
      "@odata.count": 2,
      value: [
        {
          Guid: guid("SalesOrder", "SO-002"),
          DocNumber: "SO-002",
          Lines: 2,
          Details: [
            { Guid: expect.any(String), Quantity: 10 },
            { Guid: expect.any(String), Quantity: 100 },
          ],
          SellToCustomer: {
            Guid: guid("Customer", "C002"),
            Id: "C002",
            PrimaryContact: { Guid: guid("Contact", "bob@example.com"), FullName: "Bob Baker" },
          },
        },
      ],
    });
  });

  it("reads one record with $select and $expand", async () => {
    const res = await api.call(
      "GET",
      url(`SalesOrder(${guid("SalesOrder", "SO-003")})`, {
        $select: "DocNumber,Status,TotalPrice",
        $expand: "Details($select=Quantity,UnitPrice;$expand=Product($select=SKU)),PriceLevel",
      }),
    );
    expect(res.status).toBe(200);
    expect(dataOf(await res.json())).toEqual({
      Guid: guid("SalesOrder", "SO-003"),
      DocNumber: "SO-003",
      Status: "Closed",
      TotalPrice: 0,
      Details: [
        {
          Guid: expect.any(String),
          Quantity: 1,
          UnitPrice: null,
          Product: { Guid: guid("Product", "GAD_200"), SKU: "GAD_200" },
        },
      ],
      PriceLevel: null,
    });
  });
});

describe("$orderby", () => {
  it.each([
    [
      "OrderDate (asc: nulls first)",
      { $orderby: "OrderDate" },
      ["SO-006", "SO-003", "SO-005", "SO-001", "SO-002", "SO-004"],
    ],
    ["OrderDate asc", { $orderby: "OrderDate asc" }, ["SO-006", "SO-003", "SO-005", "SO-001", "SO-002", "SO-004"]],
    [
      "OrderDate desc (nulls last)",
      { $orderby: "OrderDate desc" },
      ["SO-004", "SO-002", "SO-001", "SO-005", "SO-003", "SO-006"],
    ],
    ["two keys", { $orderby: "Status,DocNumber desc" }, ["SO-004", "SO-003", "SO-006", "SO-002", "SO-001", "SO-005"]],
    [
      "through a reference (null reference first)",
      { $orderby: "SellToCustomer/Name,DocNumber" },
      ["SO-006", "SO-001", "SO-003", "SO-002", "SO-004", "SO-005"],
    ],
    [
      "three references deep, desc",
      { $orderby: "SellToCustomer/PrimaryContact/MailingAddress/City desc,DocNumber" },
      // Toronto, Pittsburgh, Philadelphia (×2), New York, then no customer
      ["SO-005", "SO-004", "SO-001", "SO-003", "SO-002", "SO-006"],
    ],
    [
      "a $compute alias",
      { $compute: "Details/$count as Lines", $orderby: "Lines desc,DocNumber" },
      ["SO-005", "SO-001", "SO-002", "SO-003", "SO-004", "SO-006"],
    ],
    [
      "an expression",
      { $orderby: "year(OrderDate) desc,month(OrderDate),DocNumber" },
      ["SO-001", "SO-005", "SO-002", "SO-004", "SO-003", "SO-006"],
    ],
    [
      "a collection count",
      { $orderby: "Details/$count,DocNumber desc" },
      ["SO-006", "SO-004", "SO-003", "SO-002", "SO-001", "SO-005"],
    ],
  ])("SalesOrder by %s", async (_, options, expected) => {
    expect(await ordered("SalesOrder", options)).toEqual(expected);
  });

  it("orders decimals with null first ascending and last descending", async () => {
    const asc = ["GAD-100", "BOLT-9", "PCT%OFF", "WID-001", "GAD_200", "WID-002", "ÜBER-1"];
    expect(await ordered("Product", { $orderby: "Cost" })).toEqual(asc);
    expect(await ordered("Product", { $orderby: "Cost desc" })).toEqual([...asc].reverse());
  });

  it("orders by a $compute alias and returns it", async () => {
    const body = await ok("Product", {
      $compute: "Price sub Cost as Margin",
      $orderby: "Margin desc,SKU",
      $select: "SKU,Margin",
    });
    expect(body.value.map((p: any) => [p.SKU, p.Margin])).toEqual([
      ["ÜBER-1", 50],
      ["WID-002", 10],
      ["WID-001", 2.5],
      ["BOLT-9", 0.2],
      ["GAD-100", null],
      ["GAD_200", null],
      ["PCT%OFF", null],
    ]);
  });
});

describe("$filter", () => {
  describe.each([
    // comparison operators
    ["Product", "Cost eq 10", ["WID-002"]],
    ["Product", "Cost eq 2.50", ["WID-001"]],
    ["Product", "Cost ne 10", except(ALL_PRODUCTS, "WID-002")],
    ["Product", "Cost gt 7.25", ["WID-002", "ÜBER-1"]],
    ["Product", "Cost ge 7.25", ["WID-002", "GAD_200", "ÜBER-1"]],
    ["Product", "Cost lt 1", ["BOLT-9"]],
    ["Product", "Cost le 1", ["BOLT-9", "PCT%OFF"]],
    ["Product", "7.25 le Cost", ["WID-002", "GAD_200", "ÜBER-1"]],
    ["Product", "Price gt Cost", ["WID-001", "WID-002", "BOLT-9", "ÜBER-1"]],
    ["Product", "Price eq Cost", []],
    // logical operators and grouping
    ["Product", "Cost gt 1 and Cost lt 10", ["WID-001", "GAD_200"]],
    ["Product", "Cost lt 1 or Cost gt 50", ["BOLT-9", "ÜBER-1"]],
    ["Product", "not (Cost ge 1) and Cost ne null", ["BOLT-9"]],
    ["Product", "Cost lt 1 or Cost gt 50 and Price gt 1000", ["BOLT-9"]],
    ["Product", "(Cost lt 1 or Cost gt 50) and Price gt 1", ["ÜBER-1"]],
    ["Product", "not (SKU eq 'WID-001' or SKU eq 'WID-002')", except(ALL_PRODUCTS, "WID-001", "WID-002")],
    ["Product", "((((Cost eq 10))))", ["WID-002"]],
    // arithmetic
    ["Product", "Cost add 1 gt 10", ["WID-002", "ÜBER-1"]],
    ["Product", "Price sub Cost ge 10", ["WID-002", "ÜBER-1"]],
    ["Product", "Cost mul 2 eq 5", ["WID-001"]],
    ["Product", "Price div Cost eq 2", ["WID-001", "WID-002"]],
    ["Product", "Cost mod 2 eq 0.5", ["WID-001"]],
    ["Product", "Cost mod 2 eq 0", ["WID-002", "ÜBER-1"]],
    ["Product", "Cost add Price mul 2 eq 12.5", ["WID-001"]],
    ["Product", "(Cost add Price) mul 2 eq 15", ["WID-001"]],
    ["Product", "-Cost lt -50", ["ÜBER-1"]],
    ["Product", "Cost sub 0.1 eq 0", ["BOLT-9"]],
    ["SalesOrder", "Details/any(d: d/LineNumber div 2 eq 2)", ["SO-005"]],
    ["SalesOrder", "Details/any(d: d/LineNumber mod 3 eq 0)", ["SO-001", "SO-005"]],
    // in
    ["Product", "SKU in ('WID-001', 'BOLT-9', 'NOPE')", ["BOLT-9", "WID-001"]],
    ["Product", "Cost in (1, 2.5, 100)", ["WID-001", "ÜBER-1", "PCT%OFF"]],
    ["Product", "not (SKU in ('WID-001','WID-002'))", except(ALL_PRODUCTS, "WID-001", "WID-002")],
    ["SalesOrder", "Status in ('Open', 'Released')", ["SO-001", "SO-002", "SO-005", "SO-006"]],
    // literals
    ["Product", "SalesDescription eq 'O''Brien''s bolt'", ["BOLT-9"]],
    ["Product", "SKU eq 'ÜBER-1'", ["ÜBER-1"]],
    ["Product", "contains(SalesDescription,'日本')", ["ÜBER-1"]],
    ["Product", "true", ALL_PRODUCTS],
    ["Product", "false", []],
    ["Product", "not false", ALL_PRODUCTS],
    ["Product", "Cost eq 0.1", ["BOLT-9"]],
    ["Product", "Cost lt 0.10001 and Cost gt 0.09999", ["BOLT-9"]],
    ["SalesOrder", "OrderDate eq 2024-02-29", ["SO-002"]],
    ["SalesOrder", "OrderDate ge 2024-01-01 and OrderDate lt 2024-02-01", ["SO-001", "SO-005"]],
    ["SalesOrder", "OrderDate lt 2024-01-01", ["SO-003"]],
    ["SalesOrder", "PriceLevel/DiscountPercent eq 10.50", ["SO-002"]],
    ["Customer", "CreditLimit eq 250.5", ["C004"]],
    ["Customer", "CreditLimit eq 0", ["C005"]],
    // null
    ["Product", "Cost eq null", ["GAD-100"]],
    ["Product", "null eq Cost", ["GAD-100"]],
    ["Product", "Cost ne null", except(ALL_PRODUCTS, "GAD-100")],
    ["Product", "SalesDescription eq null", ["PCT%OFF"]],
    ["Product", "SalesDescription ne 'Blue widget'", except(ALL_PRODUCTS, "WID-001")],
    ["Product", "Price ne Cost", ALL_PRODUCTS],
    ["Product", "Cost add 1 gt 0", except(ALL_PRODUCTS, "GAD-100")],
    ["SalesOrder", "OrderDate eq null", ["SO-006"]],
    ["SalesOrder", "Description ne 'Empty'", except(ALL_ORDERS, "SO-006")],
    ["Customer", "PrimaryContact eq null", ["C005"]],
    ["Customer", "PrimaryContact/MailingAddress/State eq null", ["C003", "C005"]],
    ["Customer", "PrimaryContact/MailingAddress/State ne 'PA'", ["C002", "C003", "C005"]],
    ["Customer", "PrimaryContact/MailingAddress/Country eq null", ["C004", "C005"]],
    // paths through references
    ["Customer", "PrimaryContact/MailingAddress/Country/Code eq 'US'", ["C001", "C002"]],
    ["Customer", "PrimaryContact/LastName eq 'O''Brien'", ["C004"]],
    ["SalesOrder", "SellToCustomer/PrimaryContact/MailingAddress/State eq 'PA'", ["SO-001", "SO-003", "SO-004"]],
    ["SalesOrder", "PriceLevel/DiscountPercent gt 10", ["SO-002", "SO-004"]],
    ["SalesOrder", "SellToCustomer/CreditLimit ge 500 and Status eq 'Open'", ["SO-001", "SO-002"]],
    [
      "SalesOrder",
      "SellToCustomer/PrimaryContact/MailingAddress/State eq 'PA' and SellToCustomer/PrimaryContact/MailingAddress/Country/Code eq 'US'",
      ["SO-001", "SO-003"],
    ],
    // string functions
    ["Product", "contains(SKU,'WID')", ["WID-001", "WID-002"]],
    ["Product", "startswith(SKU,'GAD')", ["GAD-100", "GAD_200"]],
    ["Product", "endswith(SKU,'-1')", ["ÜBER-1"]],
    ["Product", "not contains(SKU,'-')", ["GAD_200", "PCT%OFF"]],
    ["Product", "length(SKU) eq 6", ["BOLT-9", "ÜBER-1"]],
    ["Product", "indexof(SKU,'-') eq 3", ["WID-001", "WID-002", "GAD-100"]],
    ["Product", "indexof(SKU,'Z') eq -1", ALL_PRODUCTS],
    ["Product", "substring(SKU,4) eq '001'", ["WID-001"]],
    ["Product", "substring(SKU,0,3) eq 'GAD'", ["GAD-100", "GAD_200"]],
    ["Product", "substring(SKU,1,2) eq 'ID'", ["WID-001", "WID-002"]],
    ["Product", "tolower(SKU) eq 'wid-001'", ["WID-001"]],
    ["Product", "toupper(SalesDescription) eq 'BLUE WIDGET'", ["WID-001"]],
    ["Product", "trim(SalesDescription) eq 'Red widget'", ["WID-002"]],
    ["Product", "SalesDescription eq 'Red widget'", []],
    ["Product", "concat(SKU,'!') eq 'BOLT-9!'", ["BOLT-9"]],
    ["Product", "concat(concat(SKU,'/'),SKU) eq 'WID-001/WID-001'", ["WID-001"]],
    ["Product", "length(trim(SalesDescription)) eq 10", ["WID-002", "GAD_200"]],
    // numeric functions
    ["Product", "round(Cost) eq 3", ["WID-001"]],
    ["Product", "round(Cost) eq 7", ["GAD_200"]],
    ["Product", "floor(Cost) eq 2", ["WID-001"]],
    ["Product", "ceiling(Cost) eq 8", ["GAD_200"]],
    ["Product", "ceiling(Cost) eq 1", ["BOLT-9", "PCT%OFF"]],
    // date and time functions
    ["SalesOrder", "year(OrderDate) eq 2023", ["SO-003"]],
    ["SalesOrder", "month(OrderDate) eq 2 and day(OrderDate) eq 29", ["SO-002"]],
    ["SalesOrder", "day(OrderDate) eq 1", ["SO-005"]],
    ["SalesOrder", "hour(2024-05-06T07:08:09Z) eq 7", ALL_ORDERS],
    ["SalesOrder", "hour(2024-05-06T07:08:09+02:00) eq 5", ALL_ORDERS],
    ["SalesOrder", "minute(2024-05-06T07:08:09Z) eq 8", ALL_ORDERS],
    ["SalesOrder", "second(2024-05-06T07:08:09.75Z) eq 9", ALL_ORDERS],
    ["SalesOrder", "day(2024-03-05T23:30:00-02:00) eq 6", ALL_ORDERS],
    ["SalesOrder", "now() gt 2020-01-01T00:00:00Z", ALL_ORDERS],
    ["SalesOrder", "year(now()) lt 2000", []],
    // lambdas and collection counts
    ["SalesOrder", "Details/any()", ["SO-001", "SO-002", "SO-003", "SO-005"]],
    ["SalesOrder", "not Details/any()", ["SO-004", "SO-006"]],
    ["SalesOrder", "Details/any(d: d/Quantity gt 50)", ["SO-002"]],
    ["SalesOrder", "Details/all(d: d/Quantity lt 5)", ["SO-001", "SO-003", "SO-004", "SO-006"]],
    ["SalesOrder", "Details/any(d: d/Product/SKU eq 'GAD-100')", ["SO-001", "SO-005"]],
    ["SalesOrder", "Details/all(d: d/UnitPrice ne null)", except(ALL_ORDERS, "SO-003")],
    ["SalesOrder", "Details/all(d: d/UnitPrice gt 1)", ["SO-001", "SO-004", "SO-005", "SO-006"]],
    ["SalesOrder", "Details/any(d: d/Quantity mul d/UnitPrice gt 100)", ["SO-005"]],
    ["SalesOrder", "Details/any(d: d/Quantity gt 1 and Status eq 'Open')", ["SO-001", "SO-002"]],
    ["SalesOrder", "Details/any(d: d/Quantity gt 1 and $it/Status eq 'Released')", ["SO-005"]],
    ["SalesOrder", "Details/any(d: d/Product/Uoms/any(u: u/Name eq 'Box'))", ["SO-001", "SO-002", "SO-005"]],
    ["SalesOrder", "Details/any(d: d/Product/Cost eq null)", ["SO-001", "SO-005"]],
    ["SalesOrder", "Details/any(d: d/Description ne null) and Details/all(d: d/Quantity le 10)", ["SO-001"]],
    ["SalesOrder", "Details/$count gt 2", ["SO-001", "SO-005"]],
    ["SalesOrder", "Details/$count eq 0", ["SO-004", "SO-006"]],
    ["Product", "Uoms/$count ge 1 and Uoms/all(u: u/Factor gt 1)", ["BOLT-9"]],
    ["Customer", "PrimaryContact/MailingAddress/Country/Name eq 'Canada'", ["C003"]],
  ])("%s?$filter=%s", (entity, filter, expected) => {
    it(`→ ${expected.length} records`, async () => {
      expect(await filtered(entity, filter)).toEqual(sorted(expected));
    });
  });

  it("compares Guids with GUID literals, quoted Guids and in-lists", async () => {
    const widget = guid("Product", "WID-001");
    expect(await filtered("Product", `Guid eq ${widget}`)).toEqual(["WID-001"]);
    expect(await filtered("Product", `Guid eq ${widget.toUpperCase()}`)).toEqual(["WID-001"]);
    expect(await filtered("Product", `Guid in (${widget}, ${guid("Product", "BOLT-9")})`)).toEqual([
      "BOLT-9",
      "WID-001",
    ]);
    expect(await filtered("SalesOrder", `SellToCustomer eq ${guid("Customer", "C001")}`)).toEqual(["SO-001", "SO-003"]);
    expect(await filtered("SalesOrder", `SellToCustomer eq '${guid("Customer", "C001")}'`)).toEqual([
      "SO-001",
      "SO-003",
    ]);
    expect(await filtered("SalesOrder", `SellToCustomer ne ${guid("Customer", "C001")}`)).toEqual(
      except(ALL_ORDERS, "SO-001", "SO-003"),
    );
    expect(await filtered("SalesOrder", `Details/any(d: d/Product eq ${widget})`)).toEqual([
      "SO-001",
      "SO-002",
      "SO-005",
    ]);
  });

  it("filters with a $compute alias", async () => {
    expect(
      await ordered("Product", { $compute: "Cost mul 2 as Twice", $filter: "Twice gt 10", $orderby: "SKU" }),
    ).toEqual(sorted(["WID-002", "ÜBER-1", "GAD_200"]));
    const body = await ok("SalesOrder", {
      $compute: "Details/$count as Lines,concat(DocNumber,'/x') as Tag",
      $filter: "Lines ge 2",
      $orderby: "DocNumber",
      $select: "Tag,Lines",
    });
    expect(body.value.map((o: any) => [o.Tag, o.Lines])).toEqual([
      ["SO-001/x", 3],
      ["SO-002/x", 2],
      ["SO-005/x", 4],
    ]);
  });
});

describe("null semantics (OData: eq/ne are two-valued, gt/ge/lt/le are false on null)", () => {
  it.each([
    ["not (Cost eq 10)", except(ALL_PRODUCTS, "WID-002")],
    ["not (Cost gt 5)", ["WID-001", "GAD-100", "BOLT-9", "PCT%OFF"]],
    ["not (Cost lt 1 or Cost gt 50)", except(ALL_PRODUCTS, "BOLT-9", "ÜBER-1")],
    ["not (Cost add 1 gt 5)", ["WID-001", "GAD-100", "BOLT-9", "PCT%OFF"]],
    ["not (SalesDescription eq 'Blue widget')", except(ALL_PRODUCTS, "WID-001")],
    ["SalesDescription in ('Gadget_200', null)", ["GAD_200", "PCT%OFF"]],
    ["not (Cost in (1, 2.5))", except(ALL_PRODUCTS, "WID-001", "PCT%OFF")],
  ])("Product?$filter=%s", async (filter, expected) => {
    expect(await filtered("Product", filter)).toEqual(sorted(expected));
  });

  it("returns a null comparison as false in $compute", async () => {
    const body = await ok("Product", {
      $compute: "Cost gt 5 as Pricey",
      $filter: "SKU eq 'GAD-100'",
      $select: "Pricey",
    });
    expect(body.value[0].Pricey).toBe(false);
  });
});

describe("decimals", () => {
  it("are never rounded, also when a virtual property inside a collection expand makes the server finish the JSON", async () => {
    const own = await serviceTenant("decimals");
    const exact = { "Content-Type": "application/json;IEEE754Compatible=true" };
    expect((await own.call("POST", "/api/Contact", { body: { Email: "a@example.com", FirstName: "A" } })).status).toBe(
      201,
    );
    expect(
      (await own.call("POST", "/api/Customer", { body: { Id: "C1", PrimaryContact: "a@example.com" } })).status,
    ).toBe(201);
    expect((await own.call("POST", "/api/Product", { body: { SKU: "P1" } })).status).toBe(201);
    const order = {
      DocNumber: "S1",
      SellToCustomer: "C1",
      Details: [{ Product: "P1", Quantity: "12345678901234.5678" }],
    };
    expect((await own.call("POST", "/api/SalesOrder", { body: order, headers: exact })).status).toBe(201);
    for (const expand of [
      "Details($select=Quantity)",
      "Details($select=Quantity;$expand=SalesOrder($expand=SellToCustomer($expand=PrimaryContact($select=FullName))))",
    ]) {
      const res = await own.call("GET", url("SalesOrder", { $expand: expand }));
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text.replace(/\s/g, ""), expand).toContain('"Quantity":12345678901234.5678');
    }
  });
});

describe("virtual properties (spec 4.4 rules 1-3, spec 7)", () => {
  it.each([
    ["Contact", { $filter: "FullName eq 'Ann Able'" }, "$filter"],
    ["Contact", { $filter: "startswith(FullName,'A')" }, "$filter"],
    ["Contact", { $orderby: "FullName" }, "$orderby"],
    ["Contact", { $compute: "concat(FullName,'!') as Shout" }, "$compute"],
    ["Customer", { $filter: "PrimaryContact/FullName eq 'x'" }, "$filter"],
    ["Customer", { $orderby: "PrimaryContact/FullName desc" }, "$orderby"],
    ["SalesOrder", { $filter: "SellToCustomer/PrimaryContact/FullName eq 'x'" }, "$filter"],
    [
      "SalesOrder",
      { $filter: "Details/any(d: d/SalesOrder/SellToCustomer/PrimaryContact/FullName eq 'x')" },
      "$filter",
    ],
    ["Customer", { $expand: "PrimaryContact($compute=FullName as F)" }, "$expand(PrimaryContact)/$compute"],
    [
      "SalesOrder",
      { $expand: "Details($filter=SalesOrder/SellToCustomer/PrimaryContact/FullName eq 'x')" },
      "$expand(Details)/$filter",
    ],
    [
      "SalesOrder",
      { $expand: "Details($orderby=SalesOrder/SellToCustomer/PrimaryContact/FullName)" },
      "$expand(Details)/$orderby",
    ],
  ])("%s?%o → 400 VirtualPropertyNotAllowed", async (entity, options, target) => {
    const err = await error(entity, options);
    expect(err.code).toBe("VirtualPropertyNotAllowed");
    expect(err.target).toBe(target);
    expect(err.message).toContain("FullName");
  });

  it("still selects a virtual property, also inside $expand at any depth", async () => {
    expect((await ok("Contact", { $select: "FullName", $filter: "Email eq 'cy@example.com'" })).value[0].FullName).toBe(
      "Cy",
    );
    const customers = await ok("Customer", {
      $orderby: "Id",
      $select: "Id",
      $expand: "PrimaryContact($select=FullName)",
    });
    expect(customers.value.map((c: any) => c.PrimaryContact?.FullName ?? null)).toEqual([
      "Ann Able",
      "Bob Baker",
      "Cy",
      "Dee O'Brien",
      null,
    ]);
    // a collection's items are built as JSON in the database; the virtual is computed afterwards
    const orders = await ok("SalesOrder", {
      $filter: "DocNumber eq 'SO-001'",
      $expand: "Details($expand=SalesOrder($expand=SellToCustomer($expand=PrimaryContact($select=FullName,Email))))",
    });
    const lines = orders.value[0].Details;
    expect(lines).toHaveLength(3);
    for (const d of lines) {
      expect(d.SalesOrder.SellToCustomer.PrimaryContact).toEqual({
        Guid: guid("Contact", "ann@example.com"),
        FullName: "Ann Able",
        Email: "ann@example.com",
      });
    }
  });
});

describe("names", () => {
  it.each([
    ["Product", { $filter: "sku eq 'x'" }, "sku", "SKU"],
    ["Product", { $orderby: "cost desc" }, "cost", "Cost"],
    ["Product", { $select: "SKU,cost" }, "cost", "Cost"],
    ["Product", { $compute: "price mul 2 as P" }, "price", "Price"],
    ["Product", { $expand: "uoms" }, "uoms", "Uoms"],
    ["Product", { $filter: "Nope eq 1" }, "Nope", undefined],
    ["Product", { $orderby: "Margin" }, "Margin", undefined],
    ["Customer", { $filter: "PrimaryContact/mailingAddress/State eq 'PA'" }, "mailingAddress", "MailingAddress"],
    ["Customer", { $filter: "PrimaryContact/MailingAddress/state eq 'PA'" }, "state", "State"],
    ["Customer", { $expand: "PrimaryContact($select=firstName)" }, "firstName", "FirstName"],
    ["SalesOrder", { $expand: "Details($select=qty)" }, "qty", undefined],
    ["SalesOrder", { $filter: "Details/any(d: d/quantity gt 1)" }, "quantity", "Quantity"],
    ["SalesOrder", { $filter: "details/$count gt 1" }, "details", "Details"],
  ])("%s?%o → 400 UnknownProperty naming it", async (entity, options, name, suggestion) => {
    const err = await error(entity, options);
    expect(err.code).toBe("UnknownProperty");
    expect(err.message).toContain(`"${name}"`);
    if (suggestion) expect(err.message).toContain(`"${suggestion}"`);
  });

  it("names an unknown function", async () => {
    const err = await error("Product", { $filter: "Containz(SKU,'x')" });
    expect(err.code).toBe("InvalidExpression");
    expect(err.message).toContain("Containz");
  });
});

describe("type errors → 400 InvalidExpression", () => {
  it.each([
    ["Product", "SKU eq 1"],
    ["Product", "Cost eq 'x'"],
    ["Product", "SKU add 1 eq 2"],
    ["Product", "Cost"],
    ["Product", "SKU"],
    ["Product", "contains(Cost,'1')"],
    ["Product", "contains(SKU)"],
    ["Product", "substring(SKU,'1') eq 'x'"],
    ["Product", "round(SKU) eq 1"],
    ["Product", "nope(SKU) eq 1"],
    ["Product", "Cost gt null"],
    ["Product", "Uoms eq null"],
    ["Product", "not SKU"],
    ["Product", "SKU and true"],
    ["Product", "SKU has 'x'"],
    ["Product", "Cost in ('a')"],
    ["Product", "Uoms/any(u: u/Name)"],
    ["Product", "SKU/any(u: true)"],
    ["SalesOrder", "Status eq 'Bogus'"],
    ["SalesOrder", "Status in ('Open','Bogus')"],
    ["SalesOrder", "OrderDate eq 2024-01-01T00:00:00Z"],
    ["SalesOrder", "hour(OrderDate) eq 1"],
    ["SalesOrder", "Details/Quantity gt 1"],
    ["SalesOrder", "SellToCustomer eq 'C001'"],
    ["SalesOrder", "SellToCustomer/PrimaryContact/MailingAddress eq null"],
  ])("%s?$filter=%s", async (entity, filter) => {
    const err = await error(entity, { $filter: filter });
    expect(err.code).toBe("InvalidExpression");
    expect(err.target).toBe("$filter");
  });

  it("checks $orderby and $compute expressions too", async () => {
    expect((await error("Product", { $orderby: "SKU add 1" })).code).toBe("InvalidExpression");
    expect((await error("Product", { $orderby: "Uoms/any()" })).code).toBe("InvalidExpression");
    expect((await error("Product", { $compute: "SKU mul 2 as X" })).code).toBe("InvalidExpression");
    expect((await error("Product", { $compute: "Cost mul 2 as SKU" })).code).toBe("InvalidExpression");
  });

  it("answers a division by zero with 400, not 500", async () => {
    const { status, body } = await get("Product", { $filter: "Cost div 0 gt 1" });
    expect(status).toBe(400);
    expect(body.error.code).toBeTruthy();
  });
});

describe("syntax errors → 400 QuerySyntaxError with option and position", () => {
  it.each([
    ["$filter", "SKU eq", 6],
    ["$filter", "SKU eq 'unterminated", 7],
    ["$filter", "(SKU eq 'a'", 11],
    ["$filter", "SKU eq 'a' nand true", 11],
    ["$filter", "Uoms/any(u u/Name eq 'x')", 11],
    ["$orderby", "SKU sideways", 4],
    ["$select", "SKU,,Cost", 4],
    ["$expand", "Uoms($select=Name", 17],
    ["$compute", "Cost mul 2 as", 13],
    ["$top", "ten", 0],
  ])("%s=%s", async (option, value, position) => {
    const err = await error("Product", { [option]: value });
    expect(err.code).toBe("QuerySyntaxError");
    expect(err.target).toBe(option);
    expect(err.message).toContain(`${option} at position ${position}`);
  });
});

describe("guard rails", () => {
  const deep4 = "Details($expand=SalesOrder($expand=SellToCustomer($expand=PrimaryContact)))";
  const deep5 =
    "Details($expand=SalesOrder($expand=SellToCustomer($expand=PrimaryContact($expand=MailingAddress/Country))))";

  it("allows $expand 4 levels deep and refuses a 5th", async () => {
    const body = await ok("SalesOrder", { $filter: "DocNumber eq 'SO-002'", $expand: deep4 });
    expect(body.value[0].Details[0].SalesOrder.SellToCustomer.PrimaryContact).toEqual({
      Guid: guid("Contact", "bob@example.com"),
    });
    const err = await error("SalesOrder", { $expand: deep5 });
    expect(err).toMatchObject({ code: "QuerySyntaxError", target: "$expand" });
    expect(err.message).toContain("more than 4 levels");
  });

  it("refuses more than 16 $expand items at one level", async () => {
    const err = await error("SalesOrder", { $expand: Array(17).fill("Details").join(",") });
    expect(err).toMatchObject({ code: "QuerySyntaxError", target: "$expand" });
    expect(err.message).toContain("more than 16");
  });

  it("refuses the same property expanded twice", async () => {
    expect((await error("SalesOrder", { $expand: "Details,Details" })).code).toBe("InvalidExpand");
  });

  it("refuses expressions nested too deeply", async () => {
    const nested = `${"(".repeat(40)}Cost eq 1${")".repeat(40)}`;
    expect((await error("Product", { $filter: nested })).code).toBe("QuerySyntaxError");
    const nots = `${"not ".repeat(40)}true`;
    expect((await error("Product", { $filter: nots })).code).toBe("QuerySyntaxError");
    const chain = Array.from({ length: 40 }, () => "Cost").join(" add ");
    const { status } = await get("Product", { $filter: `${chain} gt 0` });
    expect([200, 400]).toContain(status);
  });

  it("accepts an in-list of 500 items and refuses 501", async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `'S-${i}'`).join(",");
    const okay = await ok("Product", { $filter: `SKU in (${list(499)},'BOLT-9')`, $select: "SKU" });
    expect(okay.value.map((p: any) => p.SKU)).toEqual(["BOLT-9"]);
    const err = await error("Product", { $filter: `SKU in (${list(501)})` });
    expect(err.code).toBe("QuerySyntaxError");
    expect(err.message).toContain("500");
  });

  it("refuses a query string over 8192 characters", async () => {
    const long = `SKU eq '${"x".repeat(8200)}'`;
    const err = await error("Product", { $filter: long });
    expect(err.code).toBe("QuerySyntaxError");
    expect(err.target).toBe("query");
  });

  it("refuses $expand options that make no sense for a single record", async () => {
    expect((await error("Customer", { $expand: "PrimaryContact($filter=FirstName eq 'Ann')" })).code).toBe(
      "NotSupported",
    );
    expect((await error("Customer", { $expand: "Name" })).code).toBe("NotExpandable");
  });
});

describe("$apply", () => {
  it("filters and sums through a reference: filter(SalesOrder/Status eq 'Open')/aggregate(Quantity with sum as Total)", async () => {
    const body = await ok("SalesOrderDetail", {
      $apply: "filter(SalesOrder/Status eq 'Open')/aggregate(Quantity with sum as Total)",
    });
    // SO-001: 2 + 1 + 3, SO-002: 10 + 100, SO-006: none
    expect(body).toEqual({ value: [{ Total: 116 }] });
  });

  it("counts with aggregate($count as N)", async () => {
    expect(await ok("SalesOrderDetail", { $apply: "aggregate($count as N)" })).toEqual({ value: [{ N: 10 }] });
    expect(await ok("SalesOrder", { $apply: "filter(Status eq 'Closed')/aggregate($count as N)" })).toEqual({
      value: [{ N: 2 }],
    });
  });

  it("computes min, max, average and countdistinct", async () => {
    const body = await ok("SalesOrderDetail", {
      $apply:
        "aggregate(Quantity with min as Lo, Quantity with max as Hi, Quantity with average as Avg, Product with countdistinct as Products)",
    });
    // quantities 2 1 3 10 100 1 5 2 1 4: sum 129 over 10 lines; 6 different products
    expect(body).toEqual({ value: [{ Lo: 1, Hi: 100, Avg: 12.9, Products: 6 }] });
  });

  it("groups: groupby((Status),aggregate(TotalPrice with sum as Total))", async () => {
    const body = await ok("SalesOrder", { $apply: "groupby((Status),aggregate(TotalPrice with sum as Total))" });
    const groups = [...body.value].sort((a: any, b: any) => a.Status.localeCompare(b.Status));
    expect(groups).toEqual([
      { Status: "Closed", Total: 0 },
      { Status: "Open", Total: 138.25 },
      { Status: "Released", Total: 446 },
    ]);
  });

  it("groups through a reference: groupby((SalesOrder/Status),aggregate(Quantity with sum as Q))", async () => {
    const body = await ok("SalesOrderDetail", {
      $apply: "groupby((SalesOrder/Status),aggregate(Quantity with sum as Q))",
    });
    const groups = [...body.value].sort((a: any, b: any) => a.SalesOrder.Status.localeCompare(b.SalesOrder.Status));
    expect(groups).toEqual([
      { SalesOrder: { Status: "Closed" }, Q: 1 },
      { SalesOrder: { Status: "Open" }, Q: 116 },
      { SalesOrder: { Status: "Released" }, Q: 12 },
    ]);
  });

  it("lists distinct values with groupby and no aggregate", async () => {
    const body = await ok("SalesOrder", { $apply: "groupby((Status))", $orderby: "Status" });
    expect(body).toEqual({ value: [{ Status: "Closed" }, { Status: "Open" }, { Status: "Released" }] });
    const two = await ok("SalesOrderDetail", { $apply: "groupby((Product/SKU))" });
    expect(two.value.map((g: any) => g.Product.SKU).sort()).toEqual(
      sorted(["WID-001", "WID-002", "GAD-100", "GAD_200", "BOLT-9", "ÜBER-1"]),
    );
  });

  it("orders and pages the aggregated result", async () => {
    const body = await ok("SalesOrderDetail", {
      $apply: "groupby((SalesOrder/Status),aggregate(Quantity with sum as Q))",
      $orderby: "Q desc",
      $top: "2",
    });
    expect(body).toEqual({
      value: [
        { SalesOrder: { Status: "Open" }, Q: 116 },
        { SalesOrder: { Status: "Released" }, Q: 12 },
      ],
    });
  });

  it.each([
    ["Contact", "groupby((FullName))"],
    ["Contact", "aggregate(FullName with countdistinct as N)"],
    ["Contact", "filter(FullName eq 'Ann Able')/aggregate($count as N)"],
    ["Customer", "filter(PrimaryContact/FullName eq 'x')/aggregate($count as N)"],
    ["Customer", "groupby((PrimaryContact/FullName),aggregate($count as N))"],
  ])("%s?$apply=%s → 400 VirtualPropertyNotAllowed", async (entity, apply) => {
    const err = await error(entity, { $apply: apply });
    expect(err.code).toBe("VirtualPropertyNotAllowed");
    expect(err.target).toBe("$apply");
  });

  it.each([
    [{ $apply: "groupby((Status))", $expand: "Details" }],
    [{ $apply: "groupby((Status))", $select: "DocNumber" }],
    [{ $apply: "aggregate($count as N)", $filter: "Status eq 'Open'" }],
  ])("refuses $apply combined with %o", async (options) => {
    const err = await error("SalesOrder", options);
    expect(err.code).toBe("NotSupported");
    expect(err.message).toContain("$apply");
  });

  it("refuses a wrongly-typed or unknown aggregate input", async () => {
    expect((await error("SalesOrder", { $apply: "aggregate(DocNumber with sum as S)" })).code).toBe(
      "InvalidExpression",
    );
    expect((await error("SalesOrder", { $apply: "aggregate(total with sum as S)" })).code).toBe("UnknownProperty");
  });
});

describe("injection and literal matching", () => {
  it.each([
    ["SKU eq '''; DROP TABLE product; --'", []],
    ["SKU eq 'x'' OR ''1''=''1'", []],
    ["SalesDescription eq 'O''Brien''s bolt' or SKU eq ''';--'", ["BOLT-9"]],
    ["contains(SalesDescription,'O''Brien')", ["BOLT-9"]],
    ["contains(SalesDescription,'100%')", ["GAD-100"]],
    ["contains(SKU,'%')", ["PCT%OFF"]],
    ["contains(SKU,'_')", ["GAD_200"]],
    ["startswith(SKU,'GAD_')", ["GAD_200"]],
    ["startswith(SKU,'%')", []],
    ["startswith(SKU,'_')", []],
    ["endswith(SKU,'%OFF')", ["PCT%OFF"]],
    ["endswith(SKU,'_')", []],
    ["contains(SKU,'\\')", []],
    ["contains(SKU,'.*')", []],
    ["indexof(SKU,'%') eq 3", ["PCT%OFF"]],
    ["contains(SalesDescription,'✓')", ["ÜBER-1"]],
    ["SalesDescription eq 'Über-Gerät ✓ 日本'", ["ÜBER-1"]],
    ["contains(SalesDescription,'$1')", []],
    ["SKU eq '$1'", []],
  ])("Product?$filter=%s matches literally", async (filter, expected) => {
    expect(await filtered("Product", filter)).toEqual(sorted(expected));
  });

  it.each([
    ["$filter", "SKU;DROP eq 'x'"],
    ["$filter", "\"SKU\" eq 'x'"],
    ["$filter", "SKU-- eq 'x'"],
    ["$filter", "SKU eq 'x' --"],
    ["$filter", "SKU eq 'x'; DROP TABLE product"],
    ["$select", "SKU;DROP"],
    ["$select", '"SKU"'],
    ["$select", "SKU--"],
    ["$select", "SKU) FROM product; --"],
    ["$orderby", "SKU;DROP"],
    ["$orderby", "SKU--"],
    ["$orderby", '"SKU"'],
    ["$expand", "Uoms;DROP"],
    ["$expand", "Uoms($select=Name);--"],
    ["$compute", 'Cost as "x"'],
    ["$compute", "Cost as x;DROP"],
  ])("%s=%s → a safe 400", async (option, value) => {
    const err = await error("Product", { [option]: value });
    expect(["QuerySyntaxError", "UnknownProperty", "InvalidExpression"]).toContain(err.code);
    expect(err.message).not.toMatch(/SELECT|tenant_id|\$1|\n\s+at /);
  });

  it("never lets a NUL character or invalid text reach the database as a 500", async () => {
    const { status } = await get("Product", { $filter: "SKU eq 'a\u0000b'" });
    expect(status).toBe(400);
  });

  it("leaves the tables in place", async () => {
    const count = await api.call("GET", "/api/Product/$count");
    expect(await count.text()).toBe("7");
    expect(await filtered("Product", "true")).toEqual(sorted(ALL_PRODUCTS));
  });
});
