/**
 * An owned item by its key under its owner (`SalesOrder(…)/Details(…)`), through the service on
 * the sample domain: GET, PATCH and DELETE answer as `SalesOrderDetail(…)` does (body, context,
 * ETag, If-Match and If-None-Match; staging in a workflow is tested in packages/workflow), what
 * follows the item works as from there, and an owner that does not hold the item, or does not
 * exist, is a 404 that changes nothing. A POST to the owner's collection creates an item of it;
 * every write of an item, at either address, runs the owner's logic (the order's total follows).
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

const totalOf = async (order: string) =>
  (await json(await api.call("GET", `/api/SalesOrder(${order})?$select=TotalPrice`))).TotalPrice;

const linesOf = async (order: string) =>
  dataOf(
    (await json(await api.call("GET", `/api/SalesOrder(${order})/Details?$select=Quantity&$orderby=LineNumber`))).value,
  );

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

describe("POST to an owner's collection", () => {
  it("creates an item of the owner the path names, at its own address, and the owner's logic runs", async () => {
    const { guid } = await order("OK-20", [1]);
    expect(await totalOf(guid)).toBe(2);
    const res = await api.call("POST", `/api/SalesOrder(${guid})/Details?$select=Quantity,UnitPrice`, {
      body: { LineNumber: 2, Product: "OK-P", Quantity: 3 },
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(res.headers.get("Location")).toBe(`/api/SalesOrderDetail(${body.Guid})`);
    expect(body).toEqual({
      "@odata.context": "/api/$metadata#SalesOrderDetail(Quantity,UnitPrice)/$entity",
      "@odata.etag": 'W/"1"',
      Guid: body.Guid,
      Quantity: 3,
      // priced from the product by the line's logic
      UnitPrice: 2,
    });
    expect((await api.call("GET", `/api/SalesOrder(${guid})/Details(${body.Guid})`)).status).toBe(200);
    // the order's TotalOrder logic ran on the new line
    expect(await totalOf(guid)).toBe(8);
  });

  it("answers every property with return=representation, and 204 with OData-EntityId with return=minimal", async () => {
    const { guid } = await order("OK-21", []);
    const full = await api.call("POST", `/api/SalesOrder(${guid})/Details`, {
      body: { LineNumber: 1, Product: "OK-P", Quantity: 2, Description: "all of it" },
      headers: { Prefer: "return=representation" },
    });
    expect(full.headers.get("Preference-Applied")).toBe("return=representation");
    const line = await json(full);
    expect(dataOf(line)).toEqual(
      dataOf(await json(await api.call("GET", `/api/SalesOrderDetail(${line.Guid})?$select=*`))),
    );
    expect(line).toMatchObject({ SalesOrder: guid, Quantity: 2, Description: "all of it", LineNumber: 1 });
    const minimal = await api.call("POST", `/api/SalesOrder(${guid})/Details`, {
      body: { LineNumber: 2, Product: "OK-P", Quantity: 1 },
      headers: { Prefer: "return=minimal" },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.headers.get("OData-EntityId")).toMatch(/^\/api\/SalesOrderDetail\([0-9a-f-]{36}\)$/);
    expect(await totalOf(guid)).toBe(6);
  });

  it("is refused, storing nothing: an unknown owner (404), a body naming another owner (400), $count (405)", async () => {
    const a = await order("OK-22", [1]);
    const b = await order("OK-23", [1]);
    const line = { LineNumber: 2, Product: "OK-P", Quantity: 1 };
    await refused(
      await api.call("POST", `/api/SalesOrder(${MISSING})/Details`, { body: line }),
      404,
      `SalesOrder(${MISSING}) does not exist.`,
    );
    const other = await api.call("POST", `/api/SalesOrder(${a.guid})/Details`, {
      body: { ...line, SalesOrder: b.guid },
    });
    expect(other.status).toBe(400);
    expect((await json(other)).error.details).toEqual([
      expect.objectContaining({ code: "InvalidValue", target: "SalesOrder" }),
    ]);
    // naming the same owner is no conflict
    const same = await api.call("POST", `/api/SalesOrder(${a.guid})/Details`, {
      body: { ...line, SalesOrder: a.guid.toUpperCase() },
    });
    expect(same.status).toBe(201);
    const counted = await api.call("POST", `/api/SalesOrder(${a.guid})/Details/$count`, { body: line });
    expect([counted.status, (await json(counted)).error.code]).toEqual([405, "MethodNotAllowed"]);
    const bad = await api.call("POST", `/api/SalesOrder(${b.guid})/Details`, { body: { ...line, Quantity: "x" } });
    expect(bad.status).toBe(400);
    expect(await linesOf(b.guid)).toEqual([{ Guid: b.lines[0], Quantity: 1 }]);
    expect(await linesOf(a.guid)).toHaveLength(2);
  });

  it("goes on from an item: a product's unit of measure, through the line that names the product", async () => {
    const { guid, lines } = await order("OK-24", [1]);
    const res = await api.call("POST", `/api/SalesOrder(${guid})/Details(${lines[0]})/Product/Uoms?$select=Name`, {
      body: { Name: "Box", Factor: 12 },
    });
    expect(res.status).toBe(201);
    const uom = await json(res);
    expect(res.headers.get("Location")).toBe(`/api/ProductUom(${uom.Guid})`);
    const product = dataOf(await json(await api.call("GET", `/api/SalesOrderDetail(${lines[0]})/Product`)));
    const uoms = await json(await api.call("GET", `/api/Product(${product.Guid})/Uoms?$select=Name`));
    expect(uoms.value.map((u: { Name: string }) => u.Name)).toContain("Box");
  });

  it("lets thirty parallel additions to one order each in, one after the other: all stored, the total of all", async () => {
    const { guid } = await order("OK-25", []);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api.call("POST", `/api/SalesOrder(${guid})/Details`, {
          body: { LineNumber: i + 1, Product: "OK-P", Quantity: 1 },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201));
    expect(await linesOf(guid)).toHaveLength(30);
    expect(await totalOf(guid)).toBe(60);
  });
});

describe("every write of an item runs its owner's logic, at either address", () => {
  it("PATCH and DELETE at the item's own address and under its owner keep the order's total", async () => {
    const { guid, lines } = await order("OK-30", [1, 2, 3]);
    expect(await totalOf(guid)).toBe(12);
    await api.call("PATCH", `/api/SalesOrderDetail(${lines[0]})`, { body: { Quantity: 4 } });
    expect(await totalOf(guid)).toBe(18);
    await api.call("PATCH", `/api/SalesOrder(${guid})/Details(${lines[1]})`, { body: { Quantity: 5 } });
    expect(await totalOf(guid)).toBe(24);
    expect((await api.call("DELETE", `/api/SalesOrderDetail(${lines[2]})`)).status).toBe(204);
    expect(await totalOf(guid)).toBe(18);
    expect((await api.call("DELETE", `/api/SalesOrder(${guid})/Details(${lines[1]})`)).status).toBe(204);
    expect(await totalOf(guid)).toBe(8);
    const added = await api.call("POST", "/api/SalesOrderDetail", {
      body: { SalesOrder: "OK-30", LineNumber: 9, Product: "OK-P", Quantity: 1 },
    });
    expect(added.status).toBe(201);
    expect(await totalOf(guid)).toBe(10);
  });

  it("a line's save logic refuses a write through its owner as through its own address: nothing stored", async () => {
    const { guid, lines } = await order("OK-31", [1]);
    const res = await api.call("POST", `/api/SalesOrder(${guid})/Details`, {
      body: { LineNumber: 2, Product: "OK-P", Quantity: 0 },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.details).toEqual([expect.objectContaining({ target: "Details[1].Quantity" })]);
    expect(await linesOf(guid)).toEqual([{ Guid: lines[0], Quantity: 1 }]);
    expect(await totalOf(guid)).toBe(2);
  });
});

describe("parallel writes to one order's lines", () => {
  it("thirty at once, through the line (with If-Match) and through the order: each 200 or 412, the total that of the lines", async () => {
    const { guid, lines } = await order("OK-40", [1, 1]);
    const [a, b] = lines as [string, string];
    const writes = Array.from({ length: 30 }, (_, i) => {
      const quantity = i + 2;
      switch (i % 3) {
        case 0:
          return api.call("PATCH", `/api/SalesOrderDetail(${a})`, {
            body: { Quantity: quantity },
            headers: { "If-Match": 'W/"1"' },
          });
        case 1:
          return api.call("PATCH", `/api/SalesOrder(${guid})/Details(${b})`, {
            body: { Quantity: quantity },
            headers: { "If-Match": 'W/"1"' },
          });
        default:
          return api.call("PATCH", `/api/SalesOrder(${guid})`, {
            body: { Details: [{ Guid: a, Quantity: quantity }, { Guid: b }] },
          });
      }
    });
    const statuses = (await Promise.all(writes)).map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 412)).toEqual([]);
    // the deep writes of the order all went through; the total is that of the lines as they ended
    expect(statuses.filter((s, i) => i % 3 === 2 && s === 200)).toHaveLength(10);
    const ended = await linesOf(guid);
    const quantities = ended.map((l: { Quantity: number }) => l.Quantity);
    expect(await totalOf(guid)).toBe(2 * quantities.reduce((n: number, q: number) => n + q, 0));
  });
});
