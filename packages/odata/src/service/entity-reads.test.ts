import { limits, type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
const skus = Array.from({ length: 60 }, (_, i) => `R-${String(i).padStart(3, "0")}`);
const guids: string[] = [];

beforeAll(async () => {
  api = await serviceTenant("reads");
  for (const sku of skus) {
    const res = await api.call("POST", "/api/Product", {
      body: { SKU: sku, Cost: 1.5, SalesDescription: `Item ${sku}` },
    });
    expect(res.status).toBe(201);
    guids.push(((await res.json()) as { Guid: string }).Guid);
  }
});

const json = async (res: Response) => (await res.json()) as any;

describe("GET /api/{Entity}", () => {
  it("returns only Guid without $select", async () => {
    const res = await api.call("GET", "/api/Product?$top=3");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = await json(res);
    expect(body.value).toHaveLength(3);
    for (const item of body.value) expect(Object.keys(item)).toEqual(["@odata.etag", "Guid"]);
  });

  it("returns the selected properties, exact decimals, and RecordReadOnly", async () => {
    const res = await api.call("GET", `/api/Product(${guids[0]})?$select=SKU,Cost,SalesDescription,RecordReadOnly`);
    expect(await res.text()).toBe(
      `{"@odata.context":"/api/$metadata#Product(SKU,Cost,SalesDescription,RecordReadOnly)/$entity","@odata.etag":"W/\\"1\\"","Guid":"${guids[0]}","SKU":"R-000","Cost":1.5000,"SalesDescription":"Item R-000","RecordReadOnly":[]}`,
    );
  });

  it("writes decimals as strings with IEEE754Compatible=true", async () => {
    const res = await api.call("GET", `/api/Product(${guids[0]})?$select=Cost`, {
      headers: {
        Accept: "application/json;IEEE754Compatible=true",
      },
    });
    expect(res.headers.get("Content-Type")).toBe("application/json;odata.metadata=minimal;IEEE754Compatible=true");
    expect(dataOf(await json(res))).toEqual({ Guid: guids[0], Cost: "1.5000" });
  });

  it("counts before paging with $count=true, and /$count as text", async () => {
    const body = await json(await api.call("GET", "/api/Product?$count=true&$top=2&$skip=1"));
    expect(body["@odata.count"]).toBe(60);
    expect(body.value).toHaveLength(2);
    const beyond = await json(await api.call("GET", "/api/Product?$count=true&$skip=100"));
    expect(beyond).toEqual({ "@odata.context": "/api/$metadata#Product(Guid)", "@odata.count": 60, value: [] });
    const count = await api.call("GET", "/api/Product/$count");
    expect(count.status).toBe(200);
    expect(count.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(await count.text()).toBe("60");
  });

  it("pages with $top/$skip in a stable order and covers every record once", async () => {
    const seen: string[] = [];
    for (let skip = 0; skip < 60; skip += 25) {
      const body = await json(await api.call("GET", `/api/Product?$top=25&$skip=${skip}&$select=SKU`));
      seen.push(...body.value.map((p: { SKU: string }) => p.SKU));
    }
    expect([...seen].sort()).toEqual(skus);
  });

  it("cuts a page at the server page size and links the next page", async () => {
    const first = await json(await api.call("GET", "/api/Product?$select=SKU"));
    expect(first.value).toHaveLength(limits.queryLimits.maxPageSize);
    expect(first["@odata.nextLink"]).toBe("/api/Product?%24select=SKU&%24skip=50");
    const second = await json(await api.call("GET", first["@odata.nextLink"]));
    expect(second.value).toHaveLength(10);
    expect(second["@odata.nextLink"]).toBeUndefined();
    const all = [...first.value, ...second.value].map((p: { SKU: string }) => p.SKU).sort();
    expect(all).toEqual(skus);
  });

  it("links the next page with $search and $expand as sent: a %3B and a %25 in them stay escapes, a ';' a ';'", async () => {
    const query = "$select=SKU&$search=Item%20OR%20x%3By&$expand=Uoms($select=Name;$filter=Name%20eq%20'100%25')";
    const first = await json(await api.call("GET", `/api/Product?${query}`));
    expect(first.value).toHaveLength(limits.queryLimits.maxPageSize);
    const link = new URL(first["@odata.nextLink"], "http://host");
    expect(link.search).toBe(
      "?%24select=SKU&%24search=Item+OR+x%3By&%24expand=Uoms%28%24select%3DName;%24filter%3DName+eq+%27100%25%27%29&%24skip=50",
    );
    const second = await json(await api.call("GET", first["@odata.nextLink"]));
    expect(second.value).toHaveLength(10);
    expect(second.value[0]).toMatchObject({ Uoms: [] });
  });

  it.each([
    ["SKU desc", [...skus].reverse()],
    ["SKU", skus],
  ])(
    "answers each page in the order of $orderby=%s, cut at the server page size, with its count",
    async (orderby, ordered) => {
      const pageSize = limits.queryLimits.maxPageSize;
      for (const [skip, top] of [
        [0, undefined],
        [7, undefined],
        [55, undefined],
        [3, 20],
      ] as const) {
        const options = `$select=SKU&$orderby=${encodeURIComponent(orderby)}&$count=true&$skip=${skip}${top === undefined ? "" : `&$top=${top}`}`;
        const body = await json(await api.call("GET", `/api/Product?${options}`));
        const end = Math.min(skip + (top ?? pageSize), skip + pageSize);
        expect(
          body.value.map((p: { SKU: string }) => p.SKU),
          options,
        ).toEqual(ordered.slice(skip, end));
        expect(body["@odata.count"], options).toBe(60);
        expect(body["@odata.nextLink"] !== undefined, options).toBe(top === undefined && end < 60);
      }
    },
  );

  it("computes a virtual property only from its persisted inputs and selects complex values", async () => {
    const created = await json(
      await api.call("POST", "/api/Contact?$select=FullName,MailingAddress", {
        body: {
          Email: "ada@example.com",
          FirstName: "Ada",
          LastName: "Lovelace",
          MailingAddress: { City: "London" },
        },
      }),
    );
    expect(created).toMatchObject({
      FullName: "Ada Lovelace",
      MailingAddress: { Street: null, City: "London", State: null, PostalCode: null, Country: null },
    });
    const viaPath = await json(await api.call("GET", `/api/Contact(${created.Guid})?$select=MailingAddress/City`));
    expect(viaPath.MailingAddress.City).toBe("London");
  });

  it.each([
    ["/api/Product(00000000-0000-4000-8000-000000000000)", 404, "NotFound"],
    ["/api/Nope", 404, "NotFound"],
    ["/api/product", 404, "NotFound"],
    ["/api/Product(42)", 400, "InvalidKey"],
    ["/api/Product(", 400, "QuerySyntaxError"],
    ["/api/Product('SKU-1')", 400, "InvalidKey"],
    ["/api/Product?$select=sku", 400, "UnknownProperty"],
    ["/api/Product?$select=Nope", 400, "UnknownProperty"],
    ["/api/Product?$select=Uoms", 400, "NotSelectable"],
    ["/api/Product?$select=SKU,", 400, "QuerySyntaxError"],
    ["/api/Product?$top=-1", 400, "QuerySyntaxError"],
    ["/api/Product?$top=1.5", 400, "QuerySyntaxError"],
    ["/api/Product?$top=51", 400, "QuerySyntaxError"],
    ["/api/Product?$skip=-3", 400, "QuerySyntaxError"],
    ["/api/Product?$count=yes", 400, "QuerySyntaxError"],
    ["/api/Product?$bogus=1", 400, "QuerySyntaxError"],
  ])("GET %s → %i %s", async (path, status, code) => {
    const res = await api.call("GET", path);
    expect(res.status).toBe(status);
    const body = await json(res);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe("string");
  });

  it("names the option and the position of a syntax error", async () => {
    const body = await json(await api.call("GET", "/api/Product?$select=SKU,,Cost"));
    expect(body.error).toMatchObject({ code: "QuerySyntaxError", target: "$select" });
    expect(body.error.message).toMatch(/\$select at position 4/);
  });

  it("suggests the right case for a wrongly-cased property", async () => {
    const body = await json(await api.call("GET", "/api/Product?$select=sku"));
    expect(body.error.message).toContain('"SKU"');
  });
});

describe("HEAD /api/{Entity} (RFC 9110: GET without the content)", () => {
  it("answers a collection, a record, a count and a Read method like GET", async () => {
    for (const path of [
      "/api/Product?$top=2",
      `/api/Product(${guids[0]})`,
      "/api/Product/$count",
      `/api/Product(${guids[0]})/GetDefaultMarkup()`,
    ]) {
      const get = await api.call("GET", path);
      const head = await api.call("HEAD", path);
      expect(head.status, path).toBe(get.status);
      expect(get.status, path).toBeLessThan(300);
      expect(head.headers.get("Content-Type"), path).toBe(get.headers.get("Content-Type"));
    }
  });

  it("answers errors like GET: an unknown record is a 404, a bad option a 400", async () => {
    expect((await api.call("HEAD", "/api/Product(00000000-0000-4000-8000-000000000000)")).status).toBe(404);
    expect((await api.call("HEAD", "/api/Product?$select=sku")).status).toBe(400);
    expect((await api.call("HEAD", "/api/Nope")).status).toBe(404);
  });
});
