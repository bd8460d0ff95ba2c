/**
 * The grammar's cases of issue 39 through the service, against the hand-made data set of
 * test/query-fixture.ts: each form as the parser reads it, what it answers, and its bad forms as
 * 400s that name the option and the place. `divby`, `case(…)`, `in` lists holding properties,
 * `%2F` in a quoted value, `$apply` inside `$expand`, and `$search` as the ABNF's `searchExpr`.
 */

import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { beforeAll, describe, expect, it } from "vitest";
import type { Expr } from "../syntax/ast.js";
import { parseFilter, parseQueryOptions, parseResourcePath, printExpr, queryParameters } from "../syntax/index.js";

let api: ServiceTenant;
let fixture: LoadedFixture;

beforeAll(async () => {
  api = await serviceTenant("grammar-cases");
  fixture = await loadFixture(api, await testDatabase());
  // words the search operators are made of, and a ';' to search for
  for (const [SKU, SalesDescription] of [
    ["AND-1", "Black and white"],
    ["NOT-1", "Not for sale; ask"],
    ["OR-1", "Gold or silver"],
  ]) {
    const res = await api.call("POST", "/api/Product", { body: { SKU, SalesDescription } });
    expect(res.status).toBe(201);
  }
});

/** GET with the query as written (the caller encodes what needs encoding) */
async function get(path: string) {
  const res = await api.call("GET", path);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

async function ok(path: string) {
  const { status, body } = await get(path);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** the values of `key` in a collection answer, in the order given */
const column = (body: any, key: string) => dataOf(body.value).map((r: Record<string, unknown>) => r[key]);

const q = encodeURIComponent;

/** the parse of a `$filter` as text with every operation in parentheses, to show the tree */
const tree = (text: string) => printExpr(parseFilter(text));

describe("divby: decimal division, also of two integers", () => {
  it.each([
    ["Price divby 2 eq 2.5", "Price divby 2 eq 2.5"],
    ["LineNumber DIVBY 2 gt LineNumber div 2", "LineNumber divby 2 gt LineNumber div 2"],
    ["A add B divby C", "A add B divby C"],
  ])("parses %s", (text, printed) => {
    expect(tree(text)).toBe(printed);
    expect((parseFilter("A divby B mul C") as Extract<Expr, { kind: "binary" }>).op).toBe("mul");
  });

  it.each([
    [`$filter=${q("Price divby 2 eq 2.5")}`, ["WID-001"]],
    [`$filter=${q("Price divby 4 lt 1")}`, ["BOLT-9"]],
  ])("%s", async (query, expected) => {
    expect(column(await ok(`/api/Product?$select=SKU&${query}`), "SKU")).toEqual(expected);
  });

  it("divides integers as decimals, where div divides them as integers", async () => {
    const order = fixture.guids.SalesOrder!["SO-001"]!;
    const body = await ok(
      `/api/SalesOrder(${order})/Details?$select=LineNumber,Half,Whole&$compute=${q("LineNumber divby 2 as Half,LineNumber div 2 as Whole")}&$orderby=LineNumber`,
    );
    expect(dataOf(body.value).map(({ LineNumber, Half, Whole }: any) => [LineNumber, Half, Whole])).toEqual([
      [1, 0.5, 0],
      [2, 1, 1],
      [3, 1.5, 1],
    ]);
  });

  it.each([
    ["SKU divby 2 gt 1", "divby needs numbers"],
    ["Price divby", "at position 11: expected an expression but found end of input"],
  ])("%s → 400 saying why", async (filter, message) => {
    const { status, body } = await get(`/api/Product?$filter=${q(filter)}`);
    expect(status).toBe(400);
    expect(body.error.target).toBe("$filter");
    expect(body.error.message).toContain(message);
  });

  it("answers a division by zero with 400", async () => {
    const { status, body } = await get(`/api/Product?$filter=${q("Price divby 0 gt 1")}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("InvalidValue");
  });
});

describe("case(condition:value, …) wherever an expression may stand", () => {
  it.each([
    ["case(X gt 0:1,X lt 0:-1,true:0)", "case(X gt 0:1,X lt 0:-1,true:0)"],
    ["case( X gt 0 : 1 , X lt 0 : -1 , true : 0)", "case(X gt 0:1,X lt 0:-1,true:0)"],
    ["Case(A:case(B:1,true:2)) add 1 gt 2", "case(A:case(B:1,true:2)) add 1 gt 2"],
  ])("parses %s", (text, printed) => {
    expect(tree(text)).toBe(printed);
  });

  it("in $compute (the ABNF's case), $filter and $orderby", async () => {
    const band = q("case(Cost ge 10:'dear',Cost ge 1:'fair',Cost eq null:null,true:'cheap') as Band");
    const body = await ok(
      `/api/Product?$select=SKU,Band&$compute=${band}&$filter=${q("case(Cost eq null:0,true:Cost) lt 50 and not startswith(SKU,'AND') and not startswith(SKU,'NOT') and not startswith(SKU,'OR')")}&$orderby=${q("case(Price eq null:0,true:Price) desc,SKU")}`,
    );
    expect(dataOf(body.value).map(({ SKU, Band }: any) => `${SKU}:${Band}`)).toEqual([
      "WID-002:dear",
      "GAD-100:null",
      "WID-001:fair",
      "BOLT-9:cheap",
      "GAD_200:fair",
      "PCT%OFF:fair",
    ]);
  });

  it("in $apply: aggregating a case", async () => {
    const apply = q("aggregate(case(Quantity gt 2:Quantity,true:0) with sum as Bulk)");
    expect(dataOf(await ok(`/api/SalesOrderDetail?$apply=${apply}`)).value).toEqual([{ Bulk: 122 }]);
  });

  it("mixes integers and decimals as decimals; no branch that holds is null", async () => {
    const body = await ok(
      `/api/Product?$select=SKU,V&$compute=${q("case(SKU eq 'WID-001':1,SKU eq 'WID-002':2.5) as V")}&$filter=${q("SKU in ('WID-001','WID-002','BOLT-9')")}&$orderby=SKU`,
    );
    expect(dataOf(body.value).map(({ SKU, V }: any) => [SKU, V])).toEqual([
      ["BOLT-9", null],
      ["WID-001", 1],
      ["WID-002", 2.5],
    ]);
  });

  it.each([
    ["$compute", "case() as X", "at position 0: case() needs at least one branch, condition:value"],
    [
      "$compute",
      "case(Cost gt 1:2,3) as X",
      "at position 17: each argument of case() is condition:value, and '3' has no ':'",
    ],
    ["$filter", "contains(SKU:'x','y')", "at position 12: only case() takes condition:value arguments, not contains()"],
    ["$compute", "case(Cost:1) as X", "the condition must be true or false"],
    ["$compute", "case(Cost gt 1:SKU,true:Cost) as X", `"SKU" is string while "Cost" is decimal`],
  ])("%s=%s → 400 naming the place", async (option, value, message) => {
    const { status, body } = await get(`/api/Product?${option}=${q(value)}&$select=SKU`);
    expect(status).toBe(400);
    expect(body.error.target).toBe(option);
    expect(body.error.message).toContain(message);
  });
});

describe("in: a list may hold properties and expressions", () => {
  it.each([
    ["Price in (Cost, 10)", "Price in (Cost,10)"],
    ["Price in (Cost)", "Price in (Cost)"],
    ["SKU in (tolower(SKU),'x')", "SKU in (tolower(SKU),'x')"],
  ])("parses %s", (text, printed) => {
    expect(tree(text)).toBe(printed);
  });

  it.each([
    // each item compared as eq compares: the products without cost and price (null eq null) are in
    ["Price in (Cost, 20)", ["AND-1", "NOT-1", "OR-1", "WID-002"]],
    ["Cost in (Price, 1, 0.1)", ["AND-1", "BOLT-9", "NOT-1", "OR-1", "PCT%OFF"]],
    ["Price in (Cost mul 2, 0.3)", ["AND-1", "BOLT-9", "NOT-1", "OR-1", "WID-001", "WID-002"]],
    ["not (Price in (Cost mul 2))", ["BOLT-9", "GAD-100", "GAD_200", "PCT%OFF", "ÜBER-1"]],
    ["Cost in (Price, null)", ["AND-1", "GAD-100", "NOT-1", "OR-1"]],
  ])("%s", async (filter, expected) => {
    const body = await ok(`/api/Product?$select=SKU&$filter=${q(filter)}&$orderby=SKU`);
    expect((column(body, "SKU") as string[]).sort()).toEqual(expected);
  });

  it.each([
    ["Price in (SKU)", `"SKU" (string) cannot be compared with "Price"`],
    ["Price in (Cost, SKU eq 'x')", `"SKU eq 'x'" (boolean) cannot be compared with "Price"`],
    ["Price in (Uoms)", "is a collection"],
    ["Price in (Nope)", `Product has no property "Nope"`],
  ])("%s → 400 naming the item", async (filter, message) => {
    const { status, body } = await get(`/api/Product?$filter=${q(filter)}`);
    expect(status).toBe(400);
    expect(body.error.target).toBe("$filter");
    expect(body.error.message).toContain(message);
  });
});

describe("%2F inside a quoted value: the path is split at '/' first, each segment decoded after", () => {
  it.each([
    ["Categories('Smartphone%2FTablet')", "Smartphone/Tablet"],
    ["Categories('Smartphone%2fTablet')", "Smartphone/Tablet"],
    ["Categories(%27Smartphone%2FTablet%27)", "Smartphone/Tablet"],
    ["Categories('100%25%2F2')", "100%/2"],
  ])("parses %s", (path, key) => {
    const [segment] = parseResourcePath(path).segments;
    expect(segment!.args![0]!.value).toMatchObject({ kind: "string", value: key });
  });

  it("reaches a key as its decoded value, and a method parameter as well", async () => {
    expect((await api.call("POST", "/api/Customer", { body: { Id: "C/9", Name: "Slashed" } })).status).toBe(201);
    const { status, body } = await get("/api/Customer('C%2F9')");
    expect(status).toBe(400);
    expect(body.error.message).toContain(`The key "C/9" is not a Guid.`);
    const found = await ok("/api/SalesOrder/GetOpenOrders(customerId='C%2F9')?$select=DocNumber");
    expect(found.value).toEqual([]);
  });

  it.each([
    [
      "/api/Customer('C/9')",
      "in path at position 9: unterminated string literal; a '/' inside a quoted value is written %2F",
    ],
    ["/api/Customer('C%27/9')", "in path at position 12: expected ')' but found end of input"],
    ["/api/Customer('C%2/9')", "malformed percent-encoding"],
  ])("%s → 400 naming the place", async (path, message) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.error.message).toContain(message);
  });
});

describe("$apply inside $expand: each owner's items aggregated", () => {
  const order = (doc: string) => fixture.guids.SalesOrder![doc]!;

  it("parses as an option of the expand item", () => {
    const options = parseQueryOptions(
      queryParameters(
        `$expand=Details($apply=${q("groupby((Product/SKU),aggregate(Quantity with sum as Q))")};$orderby=Q desc)`,
      ),
    );
    expect(options.expand![0]!.options).toMatchObject({
      apply: [
        { kind: "groupby", groups: [{ segments: ["Product", "SKU"] }], aggregate: [{ alias: "Q", method: "sum" }] },
      ],
      orderby: [{ direction: "desc" }],
    });
  });

  it("aggregates each owner's items, with a context URL that says so", async () => {
    const body = await ok(
      `/api/SalesOrder?$select=DocNumber&$filter=${q("DocNumber in ('SO-001','SO-004','SO-005')")}&$orderby=DocNumber&$expand=Details($apply=${q("aggregate(Quantity with sum as Total,$count as Lines)")})`,
    );
    expect(body["@odata.context"]).toContain("SalesOrder(DocNumber,Details(Total,Lines))");
    expect(dataOf(body.value).map(({ DocNumber, Details }: any) => [DocNumber, Details])).toEqual([
      ["SO-001", [{ Total: 6, Lines: 3 }]],
      ["SO-004", [{ Total: null, Lines: 0 }]],
      ["SO-005", [{ Total: 12, Lines: 4 }]],
    ]);
  });

  it("groups by a path through a reference, filters, orders and pages, and counts the groups", async () => {
    const apply = q(
      "filter(Quantity gt 1)/groupby((Product/SKU),aggregate(Quantity mul UnitPrice with sum as Amount))",
    );
    const body = await ok(
      `/api/SalesOrder(${order("SO-005")})?$select=DocNumber&$expand=Details($apply=${apply};$orderby=Amount desc;$top=2;$count=true)`,
    );
    expect(dataOf(body)).toMatchObject({
      DocNumber: "SO-005",
      "Details@odata.count": 3,
      Details: [
        { Product: { SKU: "ÜBER-1" }, Amount: 300 },
        { Product: { SKU: "WID-002" }, Amount: 90 },
      ],
    });
  });

  it("aggregates any owned collection", async () => {
    const product = fixture.guids.Product!["WID-001"]!;
    const uoms = await ok(
      `/api/Product(${product})?$select=SKU&$expand=Uoms($apply=${q("aggregate(Factor with max as Most)")})`,
    );
    expect(dataOf(uoms)).toMatchObject({ SKU: "WID-001", Uoms: [{ Most: 12 }] });
  });

  it.each([
    [
      `Details($apply=${q("aggregate(Quantity with sum as T)")};$select=LineNumber)`,
      "$expand(Details)/$select",
      "$select cannot be combined with $apply",
    ],
    [`Details($apply=${q("aggregate(Description with sum as T)")})`, "$expand(Details)/$apply", "sum needs numbers"],
    [
      `Details($apply=${q("filter(Quantity gt 1)")})`,
      "$expand(Details)/$apply",
      "needs an aggregate() or groupby() step",
    ],
    [`SellToCustomer($apply=${q("aggregate($count as N)")})`, "$expand", "is a single record"],
    [
      `Details($apply=${q("aggregate(Quantity with total as T)")})`,
      "$expand",
      "at position 39: unknown aggregation method 'total'",
    ],
  ])("$expand=%s → 400 naming %s", async (expand, target, message) => {
    const { status, body } = await get(`/api/SalesOrder?$expand=${expand}`);
    expect(status).toBe(400);
    expect(body.error.target).toBe(target);
    expect(body.error.message).toContain(message);
  });
});

describe("$search as the ABNF's searchExpr", () => {
  /** the SKUs a search finds, sorted; `search` is put into the URL as written */
  async function found(search: string): Promise<string[]> {
    return (column(await ok(`/api/Product?$select=SKU&$search=${search}`), "SKU") as string[]).sort();
  }

  it.each([
    // AND, OR and NOT with nothing to operate on are words
    ["AND", ["AND-1"]],
    ["OR", ["OR-1"]],
    ["NOT", ["NOT-1"]],
    ["NOT%20NOT", ["AND-1", "BOLT-9", "GAD-100", "GAD_200", "OR-1", "PCT%OFF", "WID-001", "WID-002", "ÜBER-1"]],
    ["AND%20OR%20NOT", ["AND-1", "NOT-1"]],
    ["black%20AND", ["AND-1"]],
    ["(gold%20OR)", ["OR-1"]],
    // quoted, they are phrases like any other
    [q('"and white"'), ["AND-1"]],
    [q('"OR" silver'), ["OR-1"]],
    // the whole value in single quotes: its words, unbalanced quotes and parentheses and all
    [q(`'"black wh'`), []],
    [q(`'"black white'`), ["AND-1"]],
    [q(`'(gold'`), ["OR-1"]],
    [q(`'O''Brien''s'`), ["BOLT-9"]],
    // a ';' of a term is written %3B
    ["sale%3B", ["NOT-1"]],
  ])("$search=%s", async (search, expected) => {
    expect(await found(search)).toEqual(expected);
  });

  it.each([
    ["Details($select=LineNumber;$search=loose)", "SO-002", [2]],
    ["Details($search=loose;$select=LineNumber)", "SO-002", [2]],
    ["Details($search=(blue%20OR%20loose);$select=LineNumber)", "SO-002", [2]],
    ["Details($search='(blue';$select=LineNumber)", "SO-001", [1]],
    // a ';' ends the nested search, encoded or not (as clients encode the separators); quoted it is the term's
    ["Details($search=%22ones;%22;$select=LineNumber)", "SO-001", [1]],
    ["Details($search='ones;'%3B$select=LineNumber)", "SO-001", [1]],
    ["Details($select=LineNumber%3B$search=blue)", "SO-001", [1]],
    ["Details($search=blue%3B$select=LineNumber)", "SO-001", [1]],
    // a %3B that no option follows is a ';' of the word, as in a $search of its own
    ["Details($select=LineNumber;$search=ones%3B)", "SO-001", [1]],
    ["Details($search=ones%3B%3B$select=LineNumber)", "SO-001", [1]],
  ])("$expand=%s", async (expand, doc, lines) => {
    const body = await ok(`/api/SalesOrder(${fixture.guids.SalesOrder![doc]!})?$select=DocNumber&$expand=${expand}`);
    expect(dataOf(body).Details.map((d: { LineNumber: number }) => d.LineNumber)).toEqual(lines);
  });

  it.each([
    ["a;b", "$search", "at position 1: a ';' inside a search term is written %3B"],
    [q("'blue"), "$search", "at position 0: unterminated quoted search"],
    [q("blue 'x'"), "$search", "at position 5: a search in single quotes is the whole value"],
    [q('"blue'), "$search", "at position 0: unterminated phrase"],
    [q("(blue"), "$search", "at position 5: expected ')' but found end of input"],
    [q("'\"'"), "$search", `The search term " (at position 1 of $search) has no letter or digit`],
  ])("$search=%s → 400 naming %s and the place", async (search, target, message) => {
    const { status, body } = await get(`/api/Product?$search=${search}`);
    expect(status).toBe(400);
    expect(body.error.target).toBe(target);
    expect(body.error.message).toContain(message);
  });

  it.each([
    ["Details($search=gr(een)", "at position 18: search terms are separated by a blank"],
    ["Details($search=blue;;$top=1)", "at position 21: expected $select"],
  ])("$expand=%s → 400 naming the place", async (expand, message) => {
    const { status, body } = await get(`/api/SalesOrder?$expand=${expand}`);
    expect(status).toBe(400);
    expect(body.error.target).toBe("$expand");
    expect(body.error.message).toContain(message);
  });

  it("answers 30 different searches at once, each its own", async () => {
    const words = ["black", "gold", "sale%3B", "AND", "OR", "NOT"];
    const expected = [["AND-1"], ["OR-1"], ["NOT-1"], ["AND-1"], ["OR-1"], ["NOT-1"]];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => found(words[i % words.length]!)));
    answers.forEach((answer, i) => {
      expect(answer).toEqual(expected[i % words.length]);
    });
  });
});
