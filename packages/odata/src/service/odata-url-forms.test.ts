/**
 * URL forms of the OData grammar through the service (issue 13: the parser's remaining gaps),
 * against the hand-made data set of test/query-fixture.ts: what a client writes, what comes back.
 */

import { testDatabase } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
let fixture: LoadedFixture;

beforeAll(async () => {
  api = await serviceTenant("url-forms");
  fixture = await loadFixture(api, await testDatabase());
});

/** GET with the query as written (the caller encodes what needs encoding) */
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await api.call("GET", path, { headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** the SKUs a product query returns, sorted */
async function skus(query: string): Promise<string[]> {
  const { status, body } = await get(`/api/Product?$select=SKU&${query}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.value.map((p: { SKU: string }) => p.SKU).sort();
}

const q = encodeURIComponent;

describe("parameter aliases", () => {
  it.each([
    [`$filter=SKU eq @p&@p='WID-001'`, ["WID-001"]],
    [`$filter=${q("Cost ge @min and Cost le @max")}&@min=1&@max=${q("7.25")}`, ["GAD_200", "PCT%OFF", "WID-001"]],
    [`$filter=SKU in (@a,@b)&@a='WID-001'&@b='BOLT-9'`, ["BOLT-9", "WID-001"]],
    [`$filter=SKU in @l&@l=${q('["WID-002","GAD-100","NOPE"]')}`, ["GAD-100", "WID-002"]],
    [`$filter=contains(SKU,@p)&@p=${q("'%'")}`, ["PCT%OFF"]],
    [`$filter=SKU eq @p&@p=${q("'x'' or 1 eq 1'")}`, []],
  ])("%s", async (query, expected) => {
    expect(await skus(query)).toEqual(expected);
  });

  it("an alias with no value is a 400 naming it", async () => {
    const { status, body } = await get(`/api/Product?$filter=SKU eq @p&@q='x'`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "MissingParameter", target: "@p" });
    expect(body.error.message).toContain("@p");
  });

  it("a malformed alias value is a syntax error naming the alias", async () => {
    const { status, body } = await get(`/api/Product?$filter=SKU eq @p&@p=WID`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "QuerySyntaxError" });
    expect(body.error.message).toContain("@p");
  });

  it("aliases reach $expand", async () => {
    const order = fixture.guids.SalesOrder!["SO-001"]!;
    const { status, body } = await get(
      `/api/SalesOrder(${order})?$expand=Details($select=LineNumber;$filter=LineNumber eq @n)&@n=1`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.Details.map((d: { LineNumber: number }) => d.LineNumber)).toEqual([1]);
  });
});

describe("system query option names without $ and in any case (OData 4.01)", () => {
  it.each([
    [`filter=SKU eq 'WID-001'`, ["WID-001"]],
    [`$FILTER=SKU eq 'WID-001'`, ["WID-001"]],
    [`Filter=startswith(SKU,'GAD')`, ["GAD-100", "GAD_200"]],
    [`filter=Cost lt 1&orderby=SKU&Top=1`, ["BOLT-9"]],
  ])("%s", async (query, expected) => {
    expect(await skus(query)).toEqual(expected);
  });

  it("select= shapes the body of a create, as $select does", async () => {
    const res = await api.call("POST", "/api/Country?select=Code", { body: { Code: "FR", Name: "France" } });
    expect(res.status).toBe(201);
    expect(Object.keys(dataOf((await res.json()) as object))).toEqual(["Guid", "Code"]);
  });

  it("count=true counts and skip= pages", async () => {
    const { body } = await get("/api/Product?select=SKU&orderby=SKU&count=true&skip=1");
    expect(body["@odata.count"]).toBe(7);
    expect(body.value).toHaveLength(6);
  });

  it("the next link of a page replaces the client's skip, not repeats it", async () => {
    // more countries than the test host's page size (50)
    for (let i = 0; i < 50; i++) {
      const code = String.fromCharCode(81 + Math.floor(i / 26), 65 + (i % 26));
      const res = await api.call("POST", "/api/Country", { body: { Code: code } });
      expect(res.status).toBe(201);
    }
    const { body } = await get("/api/Country?select=Code&orderby=Code&Skip=1");
    expect(body.value).toHaveLength(50);
    const next = new URL(body["@odata.nextLink"], "http://host");
    expect([...next.searchParams.keys()].sort()).toEqual(["$skip", "orderby", "select"]);
    expect(next.searchParams.get("$skip")).toBe("51");
    const { status } = await get(`${next.pathname}${next.search}`);
    expect(status).toBe(200);
  });

  it.each([
    ["foo=1", "foo"],
    ["_=1699999999", "_"],
    ["filters=SKU eq 'x'", "filters"],
    ["$search2=x", "$search2"],
  ])("%s → 400 naming it", async (query, name) => {
    const { status, body } = await get(`/api/Product?${query}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("QuerySyntaxError");
    expect(body.error.message).toContain(`'${name}' is neither a system query option`);
  });

  it.each([
    [`$filter=SKU eq 'a'&filter=SKU eq 'b'`, "option 'filter' repeats '$filter'"],
    [`top=1&$top=1`, "option '$top' repeats 'top'"],
  ])("%s → 400", async (query, problem) => {
    const { status, body } = await get(`/api/Product?${query}`);
    expect(status).toBe(400);
    expect(body.error.message).toContain(problem);
  });

  it("a method call tells its declared parameters from options written without $", async () => {
    const call = (query: string) => get(`/api/SalesOrder/GetOpenOrders()?${query}`);
    const { status, body } = await call("customerId=C001&select=DocNumber&top=1");
    expect(status, JSON.stringify(body)).toBe(200);
    expect(dataOf(body.value)).toEqual([{ Guid: fixture.guids.SalesOrder!["SO-001"], DocNumber: "SO-001" }]);
    const unknown = await call("customerId=C001&colour=red");
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("colour");
  });
});

describe("keywords in any case and a leading + on numbers", () => {
  it.each([
    [`$filter=${q("SKU EQ 'WID-001' OR Cost Eq 1")}`, ["PCT%OFF", "WID-001"]],
    [`$filter=${q("NOT (Cost NE NULL) And SKU ne 'x'")}`, ["GAD-100"]],
    [`$filter=${q("CONTAINS(SKU,'WID') and TRUE")}`, ["WID-001", "WID-002"]],
    [`$filter=${q("Cost eq +10")}`, ["WID-002"]],
    [`$filter=${q("Cost ge +7.25 and Cost lt +1E2")}`, ["GAD_200", "WID-002"]],
    [`$orderby=${q("Cost DESC")}&$top=1&$filter=${q("Cost ne null")}`, ["ÜBER-1"]],
  ])("%s", async (query, expected) => {
    expect(await skus(query)).toEqual(expected);
  });
});

describe("a blank after an option's '=' (the ABNF has no BWS there)", () => {
  it.each([
    ["$top=%205", "$top", 0],
    ["top=%205", "top", 0],
    ["$filter=%20SKU%20eq%20'x'", "$filter", 0],
    ["$expand=Uoms($top=%201)", "$expand", 10],
  ])("%s → 400 naming the option and position", async (query, option, position) => {
    const { status, body } = await get(`/api/Product?${query}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("QuerySyntaxError");
    expect(body.error.message).toContain(`in ${option} at position ${position}: no blank is allowed after '='`);
  });
});

describe("in lists", () => {
  /** the DocNumbers an order query returns, sorted */
  async function orders(filter: string): Promise<string[]> {
    const { status, body } = await get(`/api/SalesOrder?$select=DocNumber&$filter=${q(filter)}`);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.value.map((o: { DocNumber: string }) => o.DocNumber).sort();
  }

  it.each([
    ["Status in ('Open','Released')", ["SO-001", "SO-002", "SO-005", "SO-006"]],
    ["Status in ('Closed')", ["SO-003", "SO-004"]],
    ["Status in ()", []],
    ["not (Status in ())", ["SO-001", "SO-002", "SO-003", "SO-004", "SO-005", "SO-006"]],
    ["Description in ('Empty',null)", ["SO-003", "SO-006"]],
    ["OrderDate in (2024-01-15,2024-02-29)", ["SO-001", "SO-002"]],
    ["SellToCustomer/Id in ('C001','C003') and Status IN ('Closed','Released')", ["SO-003", "SO-005"]],
    ["TotalPrice in (70,446.0)", ["SO-002", "SO-005"]],
  ])("%s", async (filter, expected) => {
    expect(await orders(filter)).toEqual(expected);
  });

  it.each([
    // items may be properties and expressions (grammar-cases.test.ts has more)
    ["Status in ('Closed',concat('Op','en'))", ["SO-001", "SO-002", "SO-003", "SO-004", "SO-006"]],
    // compared as eq compares two properties: a null equals null
    ["Description in ('Empty',Description)", ["SO-001", "SO-002", "SO-003", "SO-004", "SO-005", "SO-006"]],
  ])("%s", async (filter, expected) => {
    expect(await orders(filter)).toEqual(expected);
  });

  it.each([
    ["Status in ('Open',TotalPrice)", `"TotalPrice" (decimal) cannot be compared with "Status"`],
    ["Status in ('Open' eq 'Open')", `"'Open' eq 'Open'" (boolean) cannot be compared with "Status"`],
  ])("%s → 400 naming the item", async (filter, problem) => {
    const { status, body } = await get(`/api/SalesOrder?$filter=${q(filter)}`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "InvalidExpression", target: "$filter" });
    expect(body.error.message).toContain(problem);
  });

  it("an item of the wrong type or no value of an enumeration is a 400 naming it", async () => {
    const wrongType = await get(`/api/SalesOrder?$filter=${q("Status in ('Open',1)")}`);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toContain(`"1" (integer) cannot be compared with "Status"`);
    const noValue = await get(`/api/SalesOrder?$filter=${q("Status in ('Open','Shipped')")}`);
    expect(noValue.status).toBe(400);
    expect(noValue.body.error.message).toContain("'Shipped' is not a value of Status");
  });
});

describe("duration and time-of-day literals", () => {
  beforeAll(async () => {
    for (const [sku, LeadTime] of [
      ["WID-001", "P3D"],
      ["WID-002", "P10DT12H"],
      ["BOLT-9", "PT36H"],
    ] as const) {
      const res = await api.call("PATCH", `/api/Product(${fixture.guids.Product![sku]})`, { body: { LeadTime } });
      expect(res.status).toBe(200);
    }
  });

  it.each([
    [`$filter=${q("LeadTime gt duration'P1D'")}`, ["BOLT-9", "WID-001", "WID-002"]],
    [`$filter=${q("LeadTime eq duration'P1DT12H'")}`, ["BOLT-9"]],
    [`$filter=${q("LeadTime eq 'P1DT12H'")}`, ["BOLT-9"]],
    [`$filter=${q("LeadTime in (duration'P3D','PT36H')")}`, ["BOLT-9", "WID-001"]],
    [`$filter=${q("LeadTime add duration'PT12H' ge duration'P2D'")}`, ["BOLT-9", "WID-001", "WID-002"]],
    [`$filter=${q("totalseconds(LeadTime) lt 3E5")}`, ["BOLT-9", "WID-001"]],
    [`$filter=${q("LeadTime eq null and Cost ne null")}`, ["GAD_200", "PCT%OFF", "ÜBER-1"]],
    [
      `$filter=${q("hour(13:20:00) eq 13 and time(2024-01-01T13:20:00.5+01:00) eq 12:20:00.5")}&$top=1&$orderby=SKU`,
      ["BOLT-9"],
    ],
  ])("%s", async (query, expected) => {
    expect(await skus(query)).toEqual(expected);
  });

  it("reads a duration in ISO 8601 form, a day as 24 hours", async () => {
    const { body } = await get(`/api/Product?$select=SKU,LeadTime&$filter=${q("LeadTime ne null")}&$orderby=LeadTime`);
    expect(body.value.map((p: { SKU: string; LeadTime: string }) => [p.SKU, p.LeadTime])).toEqual([
      ["BOLT-9", "P1DT12H"],
      ["WID-001", "P3D"],
      ["WID-002", "P10DT12H"],
    ]);
  });

  it.each([
    ["LeadTime gt duration'P1M'", 12, "duration 'P1M' has years, months or weeks"],
    ["LeadTime gt duration'3 days'", 12, "invalid duration '3 days'"],
    ["LeadTime gt 25:00", 12, "invalid time of day '25:00'"],
  ])("$filter=%s → 400 at %d", async (filter, position, problem) => {
    const { status, body } = await get(`/api/Product?$filter=${q(filter)}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe("QuerySyntaxError");
    expect(body.error.message).toContain(`in $filter at position ${position}: ${problem}`);
  });

  it.each([
    ["LeadTime gt 13:20", "compares duration with timeOfDay"],
    ["LeadTime gt 'P1M'", "compares duration with string"],
  ])("$filter=%s → 400 saying why", async (filter, problem) => {
    const { status, body } = await get(`/api/Product?$filter=${q(filter)}`);
    expect(status).toBe(400);
    expect(body.error.message).toContain(problem);
  });

  it("a write names a duration that is not one", async () => {
    const res = await api.call("PATCH", `/api/Product(${fixture.guids.Product!["GAD-100"]})`, {
      body: { LeadTime: "P1M" },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("LeadTime");
  });
});
