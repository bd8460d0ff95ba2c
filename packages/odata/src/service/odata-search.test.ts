/**
 * `$search` through the service against the hand-made data set of test/query-fixture.ts (Product
 * SKU and SalesDescription, Customer Name, Contact FirstName and LastName, SalesOrderDetail
 * Description are searchable in the sample model): which records match (no ranking is asserted),
 * how characters that mean something elsewhere are taken as plain text, how it combines with the
 * other options and `$expand`, and that the statement can use the index the migration made.
 */
import { sampleModel } from "@bizdata/examples";
import { ReadPlanner } from "@bizdata/odata";
import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { fillPlaceholders } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
let fixture: LoadedFixture;

beforeAll(async () => {
  api = await serviceTenant("search");
  fixture = await loadFixture(api, await testDatabase());
});

const q = encodeURIComponent;

async function get(path: string) {
  const res = await api.call("GET", path);
  const text = await res.text();
  let body: any = text;
  try {
    // about the data: the control information (context, ETags) is asserted elsewhere
    body = dataOf(JSON.parse(text));
  } catch {}
  return { status: res.status, body };
}

/** the SKUs of the products a search (and more options) finds, sorted */
async function skus(search: string, more = ""): Promise<string[]> {
  const { status, body } = await get(`/api/Product?$select=SKU&$search=${q(search)}${more}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.value.map((p: { SKU: string }) => p.SKU).sort();
}

const ALL = ["BOLT-9", "GAD-100", "GAD_200", "PCT%OFF", "WID-001", "WID-002", "ÜBER-1"];
const without = (...found: string[]) => ALL.filter((s) => !found.includes(s));

describe("$search: which records match", () => {
  it.each([
    ["widget", ["WID-001", "WID-002"]],
    ["WIDGET", ["WID-001", "WID-002"]],
    ["blue widget", ["WID-001"]],
    ["blue AND widget", ["WID-001"]],
    // an operator word with nothing to operate on is a word (ABNF searchExpr): no product has "and"
    ["blue AND", []],
    ["NOT", []],
    ["blue OR bolt", ["BOLT-9", "WID-001"]],
    ["widget NOT red", ["WID-001"]],
    ["NOT widget", without("WID-001", "WID-002")],
    ["NOT (widget OR gadget)", without("WID-001", "WID-002", "GAD-100", "GAD_200")],
    ["(blue OR red) widget", ["WID-001", "WID-002"]],
    ["blue OR red widget", ["WID-001", "WID-002"]],
    ["blue red widget", []],
    ['"red widget"', ["WID-002"]],
    ['"widget red"', []],
    ['"gadget 100"', ["GAD-100"]],
    ["gadget", ["GAD-100", "GAD_200"]],
    // the SKU is searchable too; a hyphenated word is found whole and by its parts
    ["WID-001", ["WID-001"]],
    ["wid", ["WID-001", "WID-002"]],
    ["Über", ["ÜBER-1"]],
    ["über-gerät", ["ÜBER-1"]],
    ["日本", ["ÜBER-1"]],
    // words, not substrings or prefixes
    ["widg", []],
    ["idget", []],
    // a lower-case operator is a word
    ["blue and widget", []],
  ])("%s", async (search, expected) => {
    expect(await skus(search)).toEqual(expected);
  });
});

describe("$search: characters taken as plain text", () => {
  it.each([
    // quotes, apostrophes and %: parts of words, never syntax
    ["O'Brien", ["BOLT-9"]],
    ["\"O'Brien's bolt\"", ["BOLT-9"]],
    ["100%", ["GAD-100"]],
    ["PCT%OFF", ["PCT%OFF"]],
    ['"100% steel"', ["GAD-100"]],
    // tsquery operators inside a term are punctuation: the words around them are searched for
    ["blue&widget", ["WID-001"]],
    ["!red", ["WID-002"]],
    ["blue:*", ["WID-001"]],
    ["blue|bolt", []],
    ["'widget'", ["WID-001", "WID-002"]],
    ['"a \\"quoted\\" widget"', []],
    // SQL in a term is a word like any other
    ['"x\'); DROP TABLE product; --"', []],
    ["Gadget_200", ["GAD_200"]],
  ])("%s", async (search, expected) => {
    expect(await skus(search)).toEqual(expected);
  });

  it.each([
    ["%", "%"],
    ["&", "&"],
    ['"&"', '"&"'],
    ["widget ✓", "✓"],
  ])("%s: a term with no letter or digit → 400 naming it", async (search, term) => {
    const { status, body } = await get(`/api/Product?$search=${q(search)}`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "InvalidSearch", target: "$search" });
    expect(body.error.message).toContain(`The search term ${term} (at position`);
  });

  it.each([
    ["'widget", 0, "unterminated quoted search"],
    ['"red widget', 0, "unterminated phrase"],
    ["(blue OR red", 12, "expected ')' but found end of input"],
  ])("%s → 400 syntax error at %d", async (search, position, problem) => {
    const { status, body } = await get(`/api/Product?$search=${q(search)}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("QuerySyntaxError");
    expect(body.error.message).toContain(`in $search at position ${position}: ${problem}`);
  });
});

describe("$search with other options", () => {
  it("combines with $filter, $orderby, $top and $count (the count of all matches)", async () => {
    expect(await skus("widget OR gadget", `&$filter=${q("Cost gt 5")}`)).toEqual(["GAD_200", "WID-002"]);
    const { body } = await get(
      `/api/Product?$select=SKU&$search=widget OR gadget&$orderby=SKU desc&$top=1&$count=true`,
    );
    expect(body).toEqual({ "@odata.count": 4, value: [{ Guid: expect.any(String), SKU: "WID-002" }] });
  });

  it("is honoured by /$count", async () => {
    const res = await api.call("GET", `/api/Product/$count?$search=${q("gadget OR bolt")}`);
    expect(await res.text()).toBe("3");
  });

  it("takes up to 100 terms; more is a 400 naming the limit, not a statement nested that deep", async () => {
    const terms = (n: number) => ["bolt", ...Array.from({ length: n - 1 }, (_, i) => `nothing${i}`)];
    expect(await skus(terms(100).join(" OR "))).toEqual(["BOLT-9"]);
    expect(await skus(terms(100).join(" "))).toEqual([]);
    for (const search of [terms(101).join(" OR "), terms(500).join(" OR "), terms(500).join(" AND ")]) {
      const { status, body } = await get(`/api/Product?$search=${q(search)}`);
      expect(status).toBe(400);
      expect(body.error.message).toContain("more than the limit of 100 terms");
    }
  });

  it("refuses thirty parallel searches over the limit, each with the same 400, and answers a good one beside them", async () => {
    const over = Array.from({ length: 500 }, (_, i) => `nothing${i}`).join(" OR ");
    const [good, ...bad] = await Promise.all([
      get(`/api/Product?$select=SKU&$search=${q("bolt")}`),
      ...Array.from({ length: 30 }, () => get(`/api/Product?$search=${q(over)}`)),
    ]);
    expect(good!.body.value.map((p: { SKU: string }) => p.SKU)).toEqual(["BOLT-9"]);
    for (const { status, body } of bad) {
      expect(status).toBe(400);
      expect(body.error.message).toContain("more than the limit of 100 terms");
    }
  });

  it("is written without $ too", async () => {
    expect(await skus("bolt", "&top=5")).toEqual(["BOLT-9"]);
    const { body } = await get(`/api/Product?$select=SKU&search=bolt`);
    expect(body.value.map((p: { SKU: string }) => p.SKU)).toEqual(["BOLT-9"]);
  });

  it("searches other entities by their own searchable properties", async () => {
    const customers = await get(`/api/Customer?$select=Id&$search=acme OR delta`);
    expect(customers.body.value.map((c: { Id: string }) => c.Id).sort()).toEqual(["C001", "C004"]);
    const contacts = await get(`/api/Contact?$select=Email&$search=${q("O'Brien OR evans")}`);
    expect(contacts.body.value.map((c: { Email: string }) => c.Email).sort()).toEqual([
      "dee@example.com",
      "eve@example.com",
    ]);
  });

  it("applies inside $expand(…;$search=…) to an expanded collection, with its count", async () => {
    const order = fixture.guids.SalesOrder!["SO-002"]!;
    const { status, body } = await get(
      `/api/SalesOrder(${order})?$select=DocNumber&$expand=Details($search=loose OR ones;$select=LineNumber,Description;$count=true)`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body["Details@odata.count"]).toBe(1);
    expect(body.Details).toEqual([{ Guid: expect.any(String), LineNumber: 2, Description: "loose" }]);
    const list = await get(
      `/api/SalesOrder?$select=DocNumber&$filter=${q("Details/$count gt 0")}&$orderby=DocNumber&$expand=Details($search=${q('"blue ones" OR loose')};$select=Description)`,
    );
    expect(list.body.value.map((o: any) => [o.DocNumber, o.Details.map((d: any) => d.Description)])).toEqual([
      ["SO-001", ["blue ones"]],
      ["SO-002", ["loose"]],
      ["SO-003", []],
      ["SO-005", []],
    ]);
  });

  it("applies to a navigation to an owned collection", async () => {
    const order = fixture.guids.SalesOrder!["SO-001"]!;
    const { body } = await get(`/api/SalesOrder(${order})/Details?$search=blue&$select=LineNumber`);
    expect(body.value.map((d: { LineNumber: number }) => d.LineNumber)).toEqual([1]);
  });

  it.each([
    [
      "/api/Country?$search=canada",
      "NotSearchable",
      "Country has no searchable properties, so $search does not apply to it.",
    ],
    [
      "/api/SalesOrder?$expand=SellToCustomer($search=acme)",
      "NotSupported",
      "SellToCustomer is a single record: only $select, $expand and $compute apply inside its $expand.",
    ],
    ["/api/SalesOrder?$expand=Details($expand=Product($search=bolt))", "NotSupported", "Product is a single record"],
    [
      "/api/Product?$expand=Uoms($search=box)",
      "NotSearchable",
      "ProductUom has no searchable properties, so $expand(Uoms)/$search does not apply to it.",
    ],
    [
      "/api/Product?$apply=aggregate($count as N)&$search=bolt",
      "NotSupported",
      "$search cannot be combined with $apply",
    ],
  ])("%s → 400 %s", async (path, code, message) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain(message);
  });
});

describe("$search and the index", () => {
  it("the migration made a GIN index of exactly the document the read's statement matches", async () => {
    const db = await testDatabase();
    const [index] = await db.query<{ indexdef: string }>({
      sql: "SELECT indexdef FROM pg_indexes WHERE tablename = 'product' AND indexname LIKE 'product\\_search\\_%'",
      params: [],
    });
    // led by the tenant (btree_gin is there on both databases the suite runs on)
    const indexed = /USING gin \(tenant_id, (to_tsvector\(.*\))\)$/.exec(index?.indexdef ?? "")?.[1];
    expect(indexed, index?.indexdef).toMatch(/^to_tsvector\('simple'::regconfig, /);
    const read = new ReadPlanner(sampleModel).plan({
      path: "Product",
      search: new URLSearchParams({ $search: "widget OR bolt", $select: "SKU" }),
      ieee754Compatible: false,
    });
    if (read.kind === "method") throw new Error("a read");
    const params = fillPlaceholders(read.prepared.params as unknown[], { tenant: api.tenantId });
    const plan = await db.query<{ "QUERY PLAN": string }>({ sql: `EXPLAIN ${read.prepared.sql}`, params });
    // PostgreSQL prints both from the same parsed expression: the same text is the same expression,
    // which is what it matches an index by (a handful of rows never makes the index the cheapest way)
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain(`${indexed} @@ `);
  });
});
