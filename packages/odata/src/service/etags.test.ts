/**
 * ETags and optimistic concurrency through the service (api-conventions: ETags; OData Protocol 4.01
 * §11.4.1.1; RFC 9110 §13): every record read or written carries its ETag (`@odata.etag`, and
 * the `ETag` header of a single record), which moves with every write; `If-Match` holds a
 * PATCH, DELETE or bound Modify method to a version (412 and nothing written when stale, `*` for
 * any), `If-None-Match` answers an unchanged read with 304, a malformed condition is a 400, and
 * `$batch` parts carry their own conditions.
 */

import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;
let api: ServiceTenant;

beforeAll(async () => {
  api = await serviceTenant("etags");
});

/** a new product; its Guid and the ETag it was created with */
async function product(sku: string, more: Record<string, unknown> = {}) {
  const res = await api.call("POST", "/api/Product", { body: { SKU: sku, Cost: 1, ...more } });
  expect(res.status).toBe(201);
  return { guid: (await json(res)).Guid as string, etag: res.headers.get("ETag")! };
}

const read = (guid: string, headers: Record<string, string> = {}) =>
  api.call("GET", `/api/Product(${guid})?$select=SKU,Cost`, { headers });

const error = async (res: Response) => (await json(res)).error;

describe("ETags on reads and writes", () => {
  it('tags a record with W/"<version>" in the ETag header and @odata.etag, moving on every write', async () => {
    const { guid, etag } = await product("E-1");
    expect(etag).toBe('W/"1"');
    const first = await read(guid);
    expect(first.headers.get("ETag")).toBe('W/"1"');
    expect((await json(first))["@odata.etag"]).toBe('W/"1"');

    const patched = await api.call("PATCH", `/api/Product(${guid})?$select=Cost`, { body: { Cost: 2 } });
    expect(patched.headers.get("ETag")).toBe('W/"2"');
    expect((await json(patched))["@odata.etag"]).toBe('W/"2"');
    const minimal = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 3 },
      headers: { Prefer: "return=minimal" },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.headers.get("ETag")).toBe('W/"3"');
    const after = await read(guid);
    expect(after.headers.get("ETag")).toBe('W/"3"');
    expect(dataOf(await json(after))).toEqual({ Guid: guid, SKU: "E-1", Cost: 3 });
  });

  it("tags every entity of a collection, expanded ones too, and sends no ETag header for a collection", async () => {
    const { guid } = await product("E-2", { Uoms: [{ Name: "Each" }] });
    await api.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 5 } });
    const res = await api.call("GET", "/api/Product?$filter=SKU eq 'E-2'&$select=SKU&$expand=Uoms($select=Name)");
    expect(res.headers.get("ETag")).toBeNull();
    const [item] = (await json(res)).value;
    expect(item["@odata.etag"]).toBe('W/"2"');
    expect(item.Uoms[0]["@odata.etag"]).toBe('W/"1"');
  });
});

describe("If-Match on PATCH and DELETE", () => {
  it("refuses a stale version with 412 PreconditionFailed, writes nothing, and names the current ETag", async () => {
    const { guid, etag } = await product("M-1");
    expect((await api.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 2 } })).status).toBe(200);
    const stale = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 99 },
      headers: { "If-Match": etag },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get("ETag")).toBe('W/"2"');
    const err = await error(stale);
    expect(err).toMatchObject({ code: "PreconditionFailed", target: "If-Match" });
    expect(err.message).toContain(`Product(${guid})`);
    expect(err.message).toContain('W/"2"');
    const now = await read(guid);
    expect(now.headers.get("ETag")).toBe('W/"2"');
    expect(dataOf(await json(now)).Cost).toBe(2);

    const staleDelete = await api.call("DELETE", `/api/Product(${guid})`, { headers: { "If-Match": etag } });
    expect(staleDelete.status).toBe(412);
    expect((await read(guid)).status).toBe(200);
  });

  it("writes when If-Match names the current version (weak or strong form, or among several), and when it is *", async () => {
    const { guid, etag } = await product("M-2");
    const current = await api.call("PATCH", `/api/Product(${guid})?$select=Cost`, {
      body: { Cost: 2 },
      headers: { "If-Match": etag },
    });
    expect(current.status).toBe(200);
    expect(current.headers.get("ETag")).toBe('W/"2"');
    // weak comparison: the opaque tag decides, with or without W/, anywhere in a list
    const strong = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 3 },
      headers: { "If-Match": '"2"' },
    });
    expect(strong.status).toBe(200);
    const listed = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 4 },
      headers: { "If-Match": 'W/"1", W/"3"' },
    });
    expect(listed.status).toBe(200);
    const any = await api.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 5 }, headers: { "If-Match": "*" } });
    expect(any.status).toBe(200);
    expect(any.headers.get("ETag")).toBe('W/"5"');
    const deleted = await api.call("DELETE", `/api/Product(${guid})`, { headers: { "If-Match": 'W/"5"' } });
    expect(deleted.status).toBe(204);
    expect((await read(guid)).status).toBe(404);
  });

  it("answers 404 for a record that does not exist, whatever If-Match says", async () => {
    const missing = "00000000-0000-4000-8000-000000000001";
    for (const ifMatch of ["*", 'W/"1"']) {
      const res = await api.call("PATCH", `/api/Product(${missing})`, {
        body: { Cost: 1 },
        headers: { "If-Match": ifMatch },
      });
      expect(res.status).toBe(404);
    }
  });

  it.each([
    ["an unquoted version", "3"],
    ["a weak tag without quotes", "W/3"],
    ["a quote inside the tag", 'W/"3"x"'],
    ["an unterminated tag", 'W/"3'],
    ["an empty value", " "],
  ])("answers 400 InvalidHeader for %s, and writes nothing", async (_, ifMatch) => {
    const { guid } = await product(`M-bad-${ifMatch.length}-${ifMatch.charCodeAt(0)}`);
    const res = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 7 },
      headers: { "If-Match": ifMatch },
    });
    expect(res.status).toBe(400);
    expect(await error(res)).toMatchObject({ code: "InvalidHeader", target: "If-Match" });
    expect((await read(guid)).headers.get("ETag")).toBe('W/"1"');
  });

  it("refuses a write whose If-None-Match names the current version (412), and writes with * refused too", async () => {
    const { guid, etag } = await product("M-3");
    const named = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 2 },
      headers: { "If-None-Match": etag },
    });
    expect(named.status).toBe(412);
    expect(await error(named)).toMatchObject({ code: "PreconditionFailed", target: "If-None-Match" });
    const star = await api.call("DELETE", `/api/Product(${guid})`, { headers: { "If-None-Match": "*" } });
    expect(star.status).toBe(412);
    const other = await api.call("PATCH", `/api/Product(${guid})`, {
      body: { Cost: 2 },
      headers: { "If-None-Match": 'W/"9"' },
    });
    expect(other.status).toBe(200);
  });

  it("holds a Modify method bound to a record to the version If-Match names", async () => {
    await api.call("POST", "/api/Customer", { body: { Id: "EM-C" } });
    const order = await api.call("POST", "/api/SalesOrder", { body: { DocNumber: "EM-1", SellToCustomer: "EM-C" } });
    expect(order.status).toBe(201);
    const { Guid } = await json(order);
    const source = await json(
      await api.call("POST", "/api/SalesOrder", { body: { DocNumber: "EM-0", SellToCustomer: "EM-C" } }),
    );
    const call = (ifMatch: string) =>
      api.call("POST", `/api/SalesOrder(${Guid})/ReorderFrom`, {
        body: { salesOrderGuid: source.Guid },
        headers: { "If-Match": ifMatch },
      });
    const stale = await call('W/"7"');
    expect(stale.status, await stale.clone().text()).toBe(412);
    expect((await call(order.headers.get("ETag")!)).status).toBe(204);
  });
});

describe("If-None-Match on reads", () => {
  it("answers 304 without a body while the record is at a version it names, and 200 once it moved", async () => {
    const { guid, etag } = await product("N-1");
    const unchanged = await read(guid, { "If-None-Match": etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("ETag")).toBe(etag);
    expect(await unchanged.text()).toBe("");
    expect((await read(guid, { "If-None-Match": "*" })).status).toBe(304);
    await api.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 2 } });
    const changed = await read(guid, { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).toBe('W/"2"');
  });

  it("reads a collection whatever If-None-Match says, and a record whose If-Match is stale not at all (412)", async () => {
    const { guid } = await product("N-2");
    const list = await api.call("GET", "/api/Product?$top=1", { headers: { "If-None-Match": "*" } });
    expect(list.status).toBe(200);
    expect((await read(guid, { "If-Match": 'W/"5"' })).status).toBe(412);
    expect((await read(guid, { "If-None-Match": "3" })).status).toBe(400);
  });
});

describe("conditions in $batch parts", () => {
  const batch = (requests: unknown[]) => api.call("POST", "/api/$batch", { body: { requests } });

  it("fails a part whose If-Match is stale with 412 and runs the others", async () => {
    const { guid, etag } = await product("B-1");
    await api.call("PATCH", `/api/Product(${guid})`, { body: { Cost: 2 } });
    const { responses } = await json(
      await batch([
        { id: "stale", method: "PATCH", url: `Product(${guid})`, headers: { "if-match": etag }, body: { Cost: 9 } },
        { id: "fresh", method: "PATCH", url: `Product(${guid})`, headers: { "if-match": 'W/"2"' }, body: { Cost: 3 } },
      ]),
    );
    expect(responses.map((r: { status: number }) => r.status)).toEqual([412, 200]);
    expect(responses[0].body.error.code).toBe("PreconditionFailed");
    expect(responses[1].headers.etag).toBe('W/"3"');
    expect(dataOf(await json(await read(guid))).Cost).toBe(3);
  });

  it("fails a whole changeset when one of its parts' If-Match is stale: nothing of it is stored", async () => {
    const a = await product("B-2");
    const b = await product("B-3");
    await api.call("PATCH", `/api/Product(${b.guid})`, { body: { Cost: 2 } });
    const { responses } = await json(
      await batch([
        {
          id: "1",
          atomicityGroup: "g",
          method: "PATCH",
          url: `Product(${a.guid})`,
          headers: { "if-match": a.etag },
          body: { Cost: 8 },
        },
        {
          id: "2",
          atomicityGroup: "g",
          method: "PATCH",
          url: `Product(${b.guid})`,
          headers: { "if-match": b.etag },
          body: { Cost: 8 },
        },
      ]),
    );
    expect(responses.map((r: { status: number }) => r.status)).toEqual([424, 412]);
    expect((await read(a.guid)).headers.get("ETag")).toBe('W/"1"');
    expect(dataOf(await json(await read(a.guid))).Cost).toBe(1);
    expect(dataOf(await json(await read(b.guid))).Cost).toBe(2);
  });

  it("takes $<id> in If-Match as the ETag that earlier part answered (JSON Format 4.01 §19.3)", async () => {
    const { guid } = await product("B-4");
    const { responses } = await json(
      await batch([
        { id: "r", method: "GET", url: `Product(${guid})` },
        {
          id: "w",
          method: "PATCH",
          url: `Product(${guid})`,
          headers: { "if-match": "$r" },
          body: { Cost: 4 },
          dependsOn: ["r"],
        },
        {
          id: "again",
          method: "PATCH",
          url: `Product(${guid})`,
          headers: { "if-match": "$r" },
          body: { Cost: 5 },
          dependsOn: ["w"],
        },
      ]),
    );
    expect(responses.map((r: { status: number }) => r.status)).toEqual([200, 200, 412]);
    expect(dataOf(await json(await read(guid))).Cost).toBe(4);
  });
});
