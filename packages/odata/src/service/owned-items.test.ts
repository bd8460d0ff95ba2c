/**
 * An owned item by its key under its owner (OData containment: `Order(…)/Lines(…)`), through the
 * service on the database the suite runs on, with a model of its own that nests owned
 * collections and reaches an owner through a reference: the item answers as at its own address
 * (body, context, ETag), what follows it works as from there (references, its collections and
 * their items, its methods), and an owner that does not hold it — or does not exist — is a 404
 * naming which, before anything is read, written or called.
 */
import { type Database, migrate, ServiceError } from "@bizdata/core";
import { containmentModel, Describe } from "@bizdata/test-kit/containment-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { serviceCaller } from "@bizdata/test-kit/odata-service-caller";
import { rejection } from "@bizdata/test-kit/service-error";
import { beforeAll, describe, expect, it } from "vitest";
import type { Access } from "./odata-request.js";
import { createODataService, type ODataService } from "./odata-service.js";

const model = containmentModel("Oi");
model.subscribe(Describe, { name: "describe", run: ({ record }) => `${record!.Quantity} pieces` });

const MISSING = "00000000-0000-4000-8000-000000000000";
let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("owned-items");
const asked: Access[] = [];

const call = serviceCaller(() => service, tenantId, asked);
const get = (path: string, search = "") => call({ method: "GET", path, search });

/** the Guids of the orders, lines and notes created below, by number and line quantity */
let first: string;
let second: string;
let line: string;
let otherLine: string;
let note: string;
let customer: string;

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  service = createODataService({ db, model });
  const created = async (path: string, body: unknown) =>
    (await call({ method: "POST", path, body: async () => body })).json.Guid as string;
  await created("OiProduct", { SKU: "P-1" });
  first = await created("OiOrder", {
    Number: "O-1",
    Lines: [{ Product: "P-1", Quantity: 2, Notes: [{ Text: "fragile" }] }],
  });
  second = await created("OiOrder", { Number: "O-2", Lines: [{ Quantity: 5 }] });
  customer = await created("OiCustomer", { Code: "C-1", LastOrder: "O-1" });
  await created("OiCustomer", { Code: "C-2" });
  const lines = async (order: string) =>
    (await get(`OiOrder(${order})/Lines`, "$expand=Notes")).json.value as { Guid: string; Notes: { Guid: string }[] }[];
  const [one] = await lines(first);
  [line, note] = [one!.Guid, one!.Notes[0]!.Guid];
  otherLine = (await lines(second))[0]!.Guid;
});

describe("an owned item under its owner", () => {
  it("answers as at its own address: body, context and ETag, shaped by $select and $expand", async () => {
    for (const search of ["", "$select=Quantity&$expand=Product($select=SKU),Notes($select=Text)"]) {
      const own = await get(`OiLine(${line})`, search);
      for (const key of [line, `Guid=${line.toUpperCase()}`]) {
        const under = await get(`OiOrder(${first})/Lines(${key})`, search);
        expect([under.status, under.body, under.headers.ETag]).toEqual([200, own.body, own.headers.ETag]);
      }
    }
    const { json } = await get(`OiOrder(${first})/Lines(${line})`, "$select=Quantity&$expand=Product($select=SKU)");
    expect(json).toMatchObject({
      "@odata.context": "/api/$metadata#OiLine(Quantity,Product(SKU))/$entity",
      Quantity: 2,
      Product: { SKU: "P-1" },
    });
  });

  it("asks to read the owner as well as the item", async () => {
    asked.length = 0;
    await get(`OiCustomer(${customer})/LastOrder/Lines(${line})`);
    expect(asked).toEqual([{ kind: "read", entities: ["OiCustomer", "OiOrder", "OiLine"] }]);
  });

  it("goes on from the item: a reference, back to its owner, its collection, an item of that, its method", async () => {
    const path = `OiOrder(${first})/Lines(${line})`;
    expect((await get(`${path}/Product`, "$select=SKU")).json).toMatchObject({ SKU: "P-1" });
    expect((await get(`${path}/Order`, "$select=Number")).json).toMatchObject({ Guid: first, Number: "O-1" });
    expect((await get(`${path}/Notes`, "$select=Text")).json.value).toMatchObject([{ Guid: note, Text: "fragile" }]);
    expect((await get(`${path}/Notes/$count`)).body).toBe("1");
    expect((await get(`${path}/Notes(${note})`, "$select=Text")).json).toMatchObject({ Guid: note, Text: "fragile" });
    expect((await get(`${path}/Describe()`)).json).toMatchObject({ value: "2 pieces" });
    expect((await get(`OiCustomer(${customer})/LastOrder/Lines(${line})`, "$select=Quantity")).json).toMatchObject({
      Quantity: 2,
    });
  });

  const afterLine = ["", "/Product", "/Notes", "/Notes/$count", "/Describe()"];
  const afterNote = ["", "/Line"];
  it.each([
    [
      "another owner's item",
      () => `OiOrder(${second})/Lines(${line})`,
      afterLine,
      () => `OiOrder(${second})/Lines has no item ${line}.`,
    ],
    [
      "an unknown item",
      () => `OiOrder(${first})/Lines(${MISSING})`,
      afterLine,
      () => `OiOrder(${first})/Lines has no item ${MISSING}.`,
    ],
    [
      "a missing owner",
      () => `OiOrder(${MISSING})/Lines(${line})`,
      afterLine,
      () => `OiOrder(${MISSING}) does not exist.`,
    ],
    [
      "another item's item",
      () => `OiOrder(${second})/Lines(${otherLine})/Notes(${note})`,
      afterNote,
      () => `OiLine(${otherLine})/Notes has no item ${note}.`,
    ],
    [
      "an item under an item of another owner",
      () => `OiOrder(${second})/Lines(${line})/Notes(${note})`,
      afterNote,
      () => `OiOrder(${second})/Lines has no item ${line}.`,
    ],
  ])("%s is a 404 naming it, for the item and what follows it", async (_, path, after, message) => {
    for (const more of after) {
      const error = await rejection(get(`${path()}${more}`));
      expect(error, more).toBeInstanceOf(ServiceError);
      expect([error!.status, error!.code, error!.message]).toEqual([404, "NotFound", message()]);
    }
  });

  it("a reference to the owner that leads nowhere holds no item", async () => {
    const empty = (await get("OiCustomer", "$filter=Code eq 'C-2'")).json.value[0].Guid;
    const error = await rejection(get(`OiCustomer(${empty})/LastOrder/Lines(${line})`));
    expect([error!.status, error!.message]).toEqual([404, `OiCustomer(${empty})/LastOrder/Lines has no item ${line}.`]);
  });
});

describe("writes to an owned item under its owner", () => {
  const quantity = async (guid: string) => (await get(`OiLine(${guid})`, "$select=Quantity")).json.Quantity;

  it("updates and deletes it as at its own address, asking to read the owner", async () => {
    const order = (
      await call({ method: "POST", path: "OiOrder", body: async () => ({ Number: "O-W", Lines: [{ Quantity: 1 }] }) })
    ).json.Guid;
    const [{ Guid: item }] = (await get(`OiOrder(${order})/Lines`)).json.value;
    asked.length = 0;
    const patched = await call({
      method: "PATCH",
      path: `OiOrder(${order})/Lines(${item})`,
      search: "$select=Quantity",
      body: async () => ({ Quantity: 7 }),
    });
    expect([patched.status, patched.json.Quantity, patched.headers.ETag]).toEqual([200, 7, 'W/"2"']);
    expect(asked).toEqual([
      { kind: "update", entity: "OiLine" },
      { kind: "read", entities: ["OiOrder"] },
    ]);
    expect((await call({ method: "DELETE", path: `OiOrder(${order})/Lines(${item})` })).status).toBe(204);
    expect((await get(`OiOrder(${order})/Lines`)).json.value).toEqual([]);
  });

  it("changes nothing under another owner or a missing one", async () => {
    for (const [owner, message] of [
      [second, `OiOrder(${second})/Lines has no item ${line}.`],
      [MISSING, `OiOrder(${MISSING}) does not exist.`],
    ] as const) {
      const patch = await rejection(
        call({ method: "PATCH", path: `OiOrder(${owner})/Lines(${line})`, body: async () => ({ Quantity: 9 }) }),
      );
      expect([patch!.status, patch!.message]).toEqual([404, message]);
      const remove = await rejection(call({ method: "DELETE", path: `OiOrder(${owner})/Lines(${line})` }));
      expect([remove!.status, remove!.message]).toEqual([404, message]);
    }
    expect(await quantity(line)).toBe(2);
  });
});
