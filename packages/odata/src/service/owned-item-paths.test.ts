/**
 * An owned item by its key under its owner, as OData containment addresses it and the OASIS OpenAPI
 * converter writes it (`SalesOrder(…)/Details(…)`), through the service on the sample domain: GET,
 * PATCH and DELETE answer as `SalesOrderDetail(…)` does (body, context, ETag, If-Match and
 * If-None-Match; staging in a workflow is tested in the host), what follows the item works as from
 * there, and an owner that does not hold the item, or does not exist, is a 404 that changes
 * nothing.
 */

import { type ServiceTenant, serviceTenant } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

const json = async (res: Response) => (await res.json()) as any;
const MISSING = "00000000-0000-4000-8000-000000000000";
let api: ServiceTenant;

/** a new order with lines of the given quantities: its Guid and its lines' */
async function order(doc: string, quantities: readonly number[]) {
  const res = await api.call("POST", "/api/SalesOrder?$expand=Details($select=Guid;$orderby=LineNumber)", {
    body: {
      DocNumber: doc,
      SellToCustomer: "OK-C",
      Details: quantities.map((Quantity, i) => ({ LineNumber: i + 1, Product: "OK-P", Quantity, UnitPrice: 2 })),
    },
  });
  expect(res.status).toBe(201);
  const body = await json(res);
  return { guid: body.Guid as string, lines: body.Details.map((d: { Guid: string }) => d.Guid) as string[] };
}

const quantityOf = async (line: string) =>
  (await json(await api.call("GET", `/api/SalesOrderDetail(${line})?$select=Quantity`))).Quantity;

const refused = async (res: Response, status: number, message: string) => {
  expect(res.status).toBe(status);
  const { error } = await json(res);
  expect(error.message).toBe(message);
};

beforeAll(async () => {
  api = await serviceTenant("owned-key");
  expect((await api.call("POST", "/api/Customer", { body: { Id: "OK-C", CreditLimit: 100000 } })).status).toBe(201);
  expect((await api.call("POST", "/api/Product", { body: { SKU: "OK-P", Cost: 1, Price: 2 } })).status).toBe(201);
});

describe("GET an owned item under its owner", () => {
  it("answers as SalesOrderDetail(…) does: body, context and ETag, with $select and $expand, in (Guid=…) too", async () => {
    const { guid, lines } = await order("OK-1", [3, 4]);
    const line = lines[1]!;
    for (const search of [
      "",
      "?$select=LineNumber,Quantity&$expand=Product($select=SKU),SalesOrder($select=DocNumber)",
    ]) {
      const own = await api.call("GET", `/api/SalesOrderDetail(${line})${search}`);
      const ownBody = await own.text();
      for (const path of [`SalesOrder(${guid})/Details(${line})`, `SalesOrder(Guid=${guid})/Details(Guid=${line})`]) {
        const res = await api.call("GET", `/api/${path}${search}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("ETag")).toBe(own.headers.get("ETag"));
        expect(await res.text()).toBe(ownBody);
      }
    }
    const shaped = await json(
      await api.call("GET", `/api/SalesOrder(${guid})/Details(${line})?$select=Quantity&$expand=Product($select=SKU)`),
    );
    expect(shaped).toEqual({
      "@odata.context": "/api/$metadata#SalesOrderDetail(Quantity,Product(SKU))/$entity",
      "@odata.etag": 'W/"1"',
      Guid: line,
      Quantity: 4,
      Product: { "@odata.etag": 'W/"1"', Guid: expect.any(String), SKU: "OK-P" },
    });
  });

  it("answers If-None-Match with its ETag by 304, as its own address does", async () => {
    const { guid, lines } = await order("OK-2", [1]);
    const path = `/api/SalesOrder(${guid})/Details(${lines[0]})`;
    const etag = (await api.call("GET", path)).headers.get("ETag")!;
    const res = await api.call("GET", path, { headers: { "If-None-Match": etag } });
    expect([res.status, res.headers.get("ETag")]).toEqual([304, etag]);
  });

  it("goes on from the item: its product, its order", async () => {
    const { guid, lines } = await order("OK-3", [1]);
    const path = `/api/SalesOrder(${guid})/Details(${lines[0]})`;
    expect(dataOf(await json(await api.call("GET", `${path}/Product?$select=SKU`)))).toMatchObject({
      SKU: "OK-P",
    });
    expect(dataOf(await json(await api.call("GET", `${path}/SalesOrder?$select=DocNumber`)))).toEqual({
      Guid: guid,
      DocNumber: "OK-3",
    });
  });

  it("is refused, naming why: another order's line, an unknown line, an unknown order", async () => {
    const a = await order("OK-4", [1]);
    const b = await order("OK-5", [1]);
    for (const more of ["", "/Product", "/SalesOrder"]) {
      const get = (path: string) => api.call("GET", `/api/${path}${more}`);
      await refused(
        await get(`SalesOrder(${b.guid})/Details(${a.lines[0]})`),
        404,
        `SalesOrder(${b.guid})/Details has no item ${a.lines[0]}.`,
      );
      await refused(
        await get(`SalesOrder(${a.guid})/Details(${MISSING})`),
        404,
        `SalesOrder(${a.guid})/Details has no item ${MISSING}.`,
      );
      await refused(
        await get(`SalesOrder(${MISSING})/Details(${a.lines[0]})`),
        404,
        `SalesOrder(${MISSING}) does not exist.`,
      );
    }
  });

  it.each([
    ["Details(%l)/$count", 400, "InvalidPath", "'$count' applies to a collection, not to a single record."],
    ["Details('L-1')", 400, "InvalidKey", `The key "L-1" is not a Guid.`],
    ["Details(Guid=12)", 400, "InvalidKey", `The key "12" is not a Guid.`],
    ["Details()", 400, "InvalidKey", "SalesOrderDetail is addressed by one key, its Guid: Details(<guid>)"],
    ["Details(LineNumber=1)", 400, "InvalidKey", `"LineNumber" is not the key of SalesOrderDetail`],
    ["Details(%l)/Quantity", 400, "InvalidPath", "SalesOrderDetail.Quantity is a value"],
    ["Details(%l)/Nope", 404, "NotFound", `SalesOrderDetail has no navigation property or method "Nope"`],
  ])("SalesOrder(…)/%s → %d %s", async (rest, status, code, message) => {
    const { guid, lines } = await order(`OK-B-${rest.length}-${status}`, [1]);
    const res = await api.call("GET", `/api/SalesOrder(${guid})/${rest.replace("%l", lines[0]!)}`);
    expect(res.status).toBe(status);
    const { error } = await json(res);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });
});

describe("PATCH and DELETE an owned item under its owner", () => {
  it("update it as SalesOrderDetail(…) does, with If-Match as there", async () => {
    const { guid, lines } = await order("OK-6", [1, 1]);
    const path = `/api/SalesOrder(${guid})/Details(${lines[0]})`;
    const stale = await api.call("PATCH", path, { body: { Quantity: 9 }, headers: { "If-Match": 'W/"7"' } });
    expect([stale.status, (await json(stale)).error.code]).toEqual([412, "PreconditionFailed"]);
    const res = await api.call("PATCH", `${path}?$select=Quantity`, {
      body: { Quantity: 5 },
      headers: { "If-Match": 'W/"1"' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('W/"2"');
    expect(await json(res)).toEqual({
      "@odata.context": "/api/$metadata#SalesOrderDetail(Quantity)/$entity",
      "@odata.etag": 'W/"2"',
      Guid: lines[0],
      Quantity: 5,
    });
    const minimal = await api.call("PATCH", path, { body: { Quantity: 6 }, headers: { Prefer: "return=minimal" } });
    expect([minimal.status, minimal.headers.get("ETag")]).toEqual([204, 'W/"3"']);
  });

  it("delete it, and it is gone from its order", async () => {
    const { guid, lines } = await order("OK-7", [1, 2]);
    const stale = await api.call("DELETE", `/api/SalesOrder(${guid})/Details(${lines[0]})`, {
      headers: {
        "If-Match": 'W/"9"',
      },
    });
    expect(stale.status).toBe(412);
    expect((await api.call("DELETE", `/api/SalesOrder(${guid})/Details(${lines[0]})`)).status).toBe(204);
    const left = await json(await api.call("GET", `/api/SalesOrder(${guid})/Details?$select=Quantity`));
    expect(dataOf(left.value)).toEqual([{ Guid: lines[1], Quantity: 2 }]);
    await refused(
      await api.call("GET", `/api/SalesOrder(${guid})/Details(${lines[0]})`),
      404,
      `SalesOrder(${guid})/Details has no item ${lines[0]}.`,
    );
  });

  it("under another order, or an unknown one, change nothing: 404 before If-Match is looked at", async () => {
    const a = await order("OK-8", [1]);
    const b = await order("OK-9", [1]);
    const line = a.lines[0]!;
    for (const [owner, message] of [
      [b.guid, `SalesOrder(${b.guid})/Details has no item ${line}.`],
      [MISSING, `SalesOrder(${MISSING}) does not exist.`],
    ] as const) {
      const path = `/api/SalesOrder(${owner})/Details(${line})`;
      await refused(await api.call("PATCH", path, { body: { Quantity: 9 } }), 404, message);
      await refused(
        await api.call("PATCH", path, { body: { Quantity: 9 }, headers: { "If-Match": 'W/"1"' } }),
        404,
        message,
      );
      await refused(await api.call("DELETE", path), 404, message);
    }
    expect(await quantityOf(line)).toBe(1);
    const etag = (await api.call("GET", `/api/SalesOrderDetail(${line})`)).headers.get("ETag");
    expect(etag).toBe('W/"1"');
  });

  it("in a $batch changeset", async () => {
    const { guid, lines } = await order("OK-11", [1]);
    const res = await api.call("POST", "/api/$batch", {
      body: {
        requests: [
          {
            id: "p",
            atomicityGroup: "g",
            method: "PATCH",
            url: `SalesOrder(${guid})/Details(${lines[0]})?$select=Quantity`,
            body: { Quantity: 3 },
          },
          { id: "r", method: "GET", url: `SalesOrder(${guid})/Details(${lines[0]})?$select=Quantity` },
        ],
      },
    });
    const { responses } = await json(res);
    expect(responses.map((r: any) => [r.id, r.status, dataOf(r.body)])).toEqual([
      ["p", 200, { Guid: lines[0], Quantity: 3 }],
      ["r", 200, { Guid: lines[0], Quantity: 3 }],
    ]);
  });
});
