/**
 * `Prefer: return=representation` and `return=minimal` on writes (OData 4.01 §8.2.8.7, §8.3.4;
 * api-conventions: Writes): a create or update answers the whole entity (every property, as
 * `$select=*` reads it) unless `$select`/`$expand` say what, or nothing (204, a create with
 * `OData-EntityId`), each saying so in `Preference-Applied`; without a preference the answer is
 * the Guid alone (spec 2.1). The header is read as RFC 7240 has it, a bad `$select` is refused
 * before anything is stored, and parallel creates each answer their own record.
 */
import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

let api: ServiceTenant;
const json = async (res: Response) => (await res.json()) as any;
const representation = { Prefer: "return=representation" };

/** the record at `url` as `$select=*` reads it, without its control information */
const everything = async (url: string) => dataOf(await json(await api.call("GET", `${url}?$select=*`)));

const count = async (filter: string) =>
  Number(await (await api.call("GET", `/api/Product/$count?$filter=${encodeURIComponent(filter)}`)).text());

beforeAll(async () => {
  api = await serviceTenant("prefer");
  expect((await api.call("POST", "/api/Customer", { body: { Id: "PR-C" } })).status).toBe(201);
});

describe("Prefer: return=representation", () => {
  it("answers a create with every property, as $select=* reads it, and says it applied", async () => {
    const res = await api.call("POST", "/api/Product", {
      body: { SKU: "PR-1", Cost: 2.5, Price: 4, SalesDescription: "whole" },
      headers: representation,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("Preference-Applied")).toBe("return=representation");
    const body = await json(res);
    expect(res.headers.get("Location")).toBe(`/api/Product(${body.Guid})`);
    expect(res.headers.get("ETag")).toBe('W/"1"');
    expect(body["@odata.context"]).toBe(
      "/api/$metadata#Product(Title,SKU,SalesDescription,Cost,Price,LeadTime)/$entity",
    );
    expect(dataOf(body)).toEqual(await everything(`/api/Product(${body.Guid})`));
    expect(dataOf(body)).toMatchObject({ SKU: "PR-1", Cost: 2.5, Price: 4, SalesDescription: "whole" });
  });

  it("answers what $select and $expand say when they are given", async () => {
    const selected = await api.call("POST", "/api/Product?$select=SKU", {
      body: { SKU: "PR-2", Cost: 1 },
      headers: representation,
    });
    expect(selected.headers.get("Preference-Applied")).toBe("return=representation");
    expect(Object.keys(dataOf(await json(selected)))).toEqual(["Guid", "SKU"]);
    // $expand alone adds to every property
    const expanded = await json(
      await api.call("POST", "/api/Product?$expand=Uoms($select=Name)", {
        body: { SKU: "PR-3", Uoms: [{ Name: "Each" }] },
        headers: representation,
      }),
    );
    expect(expanded.SKU).toBe("PR-3");
    expect(dataOf(expanded.Uoms)).toEqual([{ Guid: expect.any(String), Name: "Each" }]);
  });

  it("answers an update with every property", async () => {
    const { Guid } = await json(await api.call("POST", "/api/Product", { body: { SKU: "PR-4", Cost: 1 } }));
    const res = await api.call("PATCH", `/api/Product(${Guid})`, { body: { Cost: 3 }, headers: representation });
    expect(res.status).toBe(200);
    expect(res.headers.get("Preference-Applied")).toBe("return=representation");
    expect(res.headers.get("ETag")).toBe('W/"2"');
    expect(dataOf(await json(res))).toEqual(await everything(`/api/Product(${Guid})`));
  });

  it("answers a record written without a preference with its Guid alone, as before", async () => {
    const res = await api.call("POST", "/api/Product", { body: { SKU: "PR-5" } });
    expect(res.headers.get("Preference-Applied")).toBeNull();
    expect(Object.keys(await json(res))).toEqual(["@odata.context", "@odata.etag", "Guid"]);
  });

  it("refuses a $select that names no property with 400 naming it, storing nothing", async () => {
    const res = await api.call("POST", "/api/Product?$select=SKU,Nope", {
      body: { SKU: "PR-BAD" },
      headers: representation,
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "UnknownProperty",
      target: "$select",
      message: expect.stringContaining('"Nope"'),
    });
    expect(await count("SKU eq 'PR-BAD'")).toBe(0);
  });

  it("answers thirty parallel creates each with its own record", async () => {
    const skus = Array.from({ length: 30 }, (_, i) => `PR-P-${i}`);
    const answers = await Promise.all(
      skus.map((SKU, i) => api.call("POST", "/api/Product", { body: { SKU, Cost: i }, headers: representation })),
    );
    expect(answers.map((r) => r.status)).toEqual(skus.map(() => 201));
    const bodies = await Promise.all(answers.map(json));
    expect(bodies.map((b) => [b.SKU, b.Cost])).toEqual(skus.map((sku, i) => [sku, i]));
    expect(new Set(bodies.map((b) => b.Guid)).size).toBe(30);
  });
});

describe("Prefer: return=minimal", () => {
  it("answers a create with 204, Location and OData-EntityId naming the record", async () => {
    const res = await api.call("POST", "/api/Product", {
      body: { SKU: "PR-M1" },
      headers: { Prefer: "return=minimal" },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(res.headers.get("Preference-Applied")).toBe("return=minimal");
    const location = res.headers.get("Location")!;
    expect(location).toMatch(/^\/api\/Product\([0-9a-f-]{36}\)$/);
    expect(res.headers.get("OData-EntityId")).toBe(location);
    expect((await api.call("GET", location)).status).toBe(200);
  });

  it("answers an update with 204 and its ETag", async () => {
    const { Guid } = await json(await api.call("POST", "/api/Product", { body: { SKU: "PR-M2" } }));
    const res = await api.call("PATCH", `/api/Product(${Guid})?$select=SKU`, {
      body: { Cost: 2 },
      headers: { Prefer: "return=minimal" },
    });
    expect([res.status, res.headers.get("ETag"), res.headers.get("Preference-Applied")]).toEqual([
      204,
      'W/"2"',
      "return=minimal",
    ]);
  });
});

describe("the Prefer header, as RFC 7240 writes it", () => {
  it.each([
    ["beside other preferences", "odata.maxpagesize=5, return=representation", "representation"],
    ["in any case", "RETURN=Representation", "representation"],
    ["quoted", 'return="minimal"', "minimal"],
    ["with parameters", "return=minimal; foo=bar", "minimal"],
    ["the first of two", "return=minimal, return=representation", "minimal"],
    ["a value that is neither: ignored", "return=everything", "none"],
    ["another preference alone: ignored", "respond-async", "none"],
  ])("%s: %s", async (_, prefer, applied) => {
    const res = await api.call("POST", "/api/Product", {
      body: { SKU: `PR-H-${prefer.length}-${applied}` },
      headers: { Prefer: prefer },
    });
    expect(res.status).toBe(applied === "minimal" ? 204 : 201);
    expect(res.headers.get("Preference-Applied")).toBe(applied === "none" ? null : `return=${applied}`);
    if (applied !== "minimal") {
      const keys = Object.keys(dataOf(await json(res)));
      expect(keys.length > 1).toBe(applied === "representation");
    }
  });

  it("is honoured in a $batch part", async () => {
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: [
          { id: "r", method: "POST", url: "Product", headers: representation, body: { SKU: "PR-B1", Cost: 7 } },
          { id: "m", method: "POST", url: "Product", headers: { Prefer: "return=minimal" }, body: { SKU: "PR-B2" } },
        ],
      },
    });
    const { responses } = await json(res);
    const [r, m] = ["r", "m"].map((id) => responses.find((p: any) => p.id === id));
    expect([r.status, r.headers["preference-applied"], r.body.SKU, r.body.Cost]).toEqual([
      201,
      "return=representation",
      "PR-B1",
      7,
    ]);
    expect([m.status, m.headers["preference-applied"], m.headers["odata-entityid"]]).toEqual([
      204,
      "return=minimal",
      expect.stringMatching(/^\/api\/Product\(/),
    ]);
  });
});
