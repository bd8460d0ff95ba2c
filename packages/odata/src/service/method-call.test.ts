/**
 * Method calls bind values, never text: a method's `query` gets its arguments as `@name`
 * parameters typed against what they are compared with, and a collection result is read back
 * with its keys as one array parameter, so no argument can change a filter's meaning and no
 * result is too long for a URL or cut by the server page. Driven through the service on plain
 * data, with a model of its own.
 */
import { randomUUID } from "node:crypto";
import {
  type Database,
  defineModel,
  entity,
  enumeration,
  insertRecords,
  inTenant,
  integer,
  method,
  migrate,
  reference,
  text,
} from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Echo = method({
  description: "Answers with the arguments it received",
  type: "read",
  isStatic: true,
  params: { first: text(), second: text() },
  returns: { kind: "scalar", type: text() },
});
const OrdersOf = method({
  description: "Open orders of a customer, by its code",
  type: "read",
  isStatic: true,
  params: { code: text({ required: true }) },
  returns: { kind: "collection", entity: "McOrder" },
});
const ByNote = method({
  description: "Orders whose note is the given text",
  type: "read",
  isStatic: true,
  params: { note: text({ required: true }) },
  returns: { kind: "collection", entity: "McOrder" },
});
const FromNumber = method({
  description: "Every order from a number on",
  type: "read",
  isStatic: true,
  params: { min: integer({ required: true }) },
  returns: { kind: "collection", entity: "McOrder" },
});
const Broken = method({
  description: "Returns something that is not a key",
  type: "read",
  isStatic: true,
  returns: { kind: "collection", entity: "McOrder" },
});

const Customer = entity("McCustomer", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const Order = entity("McOrder", {
  naturalKey: "Number",
  fields: {
    Number: integer({ required: true }),
    Customer: reference("McCustomer"),
    Status: enumeration(["Open", "Closed"], { default: "Open" }),
    Note: text(),
  },
  methods: { Echo, OrdersOf, ByNote, FromNumber, Broken },
});
// operations can be qualified by the namespace or its alias, as $metadata declares them
const model = defineModel([Customer, Order], { namespace: "acme.orders", alias: "orders" });

model.subscribe(Echo, { name: "echo", run: ({ args }) => JSON.stringify(args) });
model.subscribe(OrdersOf, {
  name: "orders",
  run: async ({ query }) =>
    (await query("McOrder", "Customer/Code eq @code and Status eq 'Open'", { orderby: "Number" })).map(
      (o) => o.Guid as string,
    ),
});
model.subscribe(ByNote, {
  name: "by note",
  run: async ({ query }) => (await query("McOrder", "Note eq @note")).map((o) => o.Guid as string),
});
model.subscribe(FromNumber, {
  name: "from",
  run: async ({ query }) => (await query("McOrder", "Number ge @min")).map((o) => o.Guid as string),
});
model.subscribe(Broken, { name: "broken", run: () => ["not a key"] });

/** customer codes that a text splice would misread */
const CODES = ["@code", "O'Brien", "6F1C2D3E-4B5A-4C6D-8E9F-0A1B2C3D4E5F", "x' or Status eq 'Closed"];
const GUID_NOTE = "6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f";
const MANY = 2_000;

let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("method-values");

// these cases are about the values that arrive: the answers without control information
const get = async (path: string, search = "") => {
  const result = await service.handle({
    method: "GET",
    path,
    search: new URLSearchParams(search),
    tenantId,
    metadata: "none",
  });
  return { ...result, json: result.body === undefined ? undefined : JSON.parse(result.body) };
};
const numbers = (json: { value: { Number: number }[] }) => json.value.map((o) => o.Number);

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  // small page and in-list limits: a result longer than either still comes back whole
  service = createODataService({
    db,
    model,
    queryLimits: { ...defaultQueryLimits, maxInListLength: 50, maxPageSize: 100 },
  });
  const customers = CODES.map((Code) => ({ Guid: randomUUID(), Code }));
  const orders = customers.flatMap((c, i) => [
    { Guid: randomUUID(), Number: i * 10 + 1, Customer: c.Guid, Status: "Open", Note: null as string | null },
    { Guid: randomUUID(), Number: i * 10 + 2, Customer: c.Guid, Status: "Closed", Note: null as string | null },
  ]);
  orders[0]!.Note = GUID_NOTE;
  const many = Array.from({ length: MANY }, (_, i) => ({
    Guid: randomUUID(),
    Number: 10_000 + i,
    Customer: null,
    Status: "Open",
    Note: null,
  }));
  await inTenant(db, tenantId, async (tx) => {
    await insertRecords(tx, Customer, tenantId, customers);
    await insertRecords(tx, Order, tenantId, [...orders, ...many]);
  });
});

describe("the operation segment", () => {
  it.each(["McOrder/Echo(first='a')", "McOrder/acme.orders.Echo(first='a')", "McOrder/orders.Echo(first='a')"])(
    "%s: unqualified, or qualified by the namespace or its alias",
    async (path) => {
      expect((await get(path)).json).toEqual({ value: JSON.stringify({ first: "a", second: null }) });
    },
  );

  it.each(["bizdata", "acme", "Orders", "acme.orders.x"])("qualified by %s → 404 naming it", async (qualifier) => {
    await expect(get(`McOrder/${qualifier}.Echo()`)).rejects.toMatchObject({
      status: 404,
      message: `There is no operation "${qualifier}.Echo": operations are qualified by "acme.orders" or its alias "orders", or not at all.`,
    });
  });
});

describe("method arguments arrive as values", () => {
  it.each([
    ["an alias-like text", "@first", "@second"],
    ["quotes", "O'Brien", "'twas"],
    ["a Guid-shaped text", "6F1C2D3E-4B5A-4C6D-8E9F-0A1B2C3D4E5F", GUID_NOTE],
  ])("%s, in the query string and inline", async (_, first, second) => {
    const search = new URLSearchParams({ first, second });
    const viaQuery = await get("McOrder/Echo()", search.toString());
    expect(viaQuery.status).toBe(200);
    expect(JSON.parse(viaQuery.json.value)).toEqual({ first, second });
    const quoted = (v: string) => `'${v.replaceAll("'", "''")}'`;
    const inline = await get(`McOrder/Echo(first=${quoted(first)},second=${quoted(second)})`);
    expect(JSON.parse(inline.json.value)).toEqual({ first, second });
  });

  it.each(CODES.map((code, i) => [code, i * 10 + 1]))("finds the open orders of customer %j", async (code, open) => {
    const { status, json } = await get(
      "McOrder/OrdersOf()",
      new URLSearchParams({ code, $select: "Number" }).toString(),
    );
    expect(status).toBe(200);
    expect(numbers(json)).toEqual([open]);
  });

  it("finds nothing for a code no customer has, however it is written", async () => {
    for (const code of ["@x", "' or 1 eq 1 or '", "00000000-0000-0000-0000-000000000000"]) {
      const { json } = await get("McOrder/OrdersOf()", new URLSearchParams({ code }).toString());
      expect(json).toEqual({ value: [] });
    }
  });

  it("compares a Guid-shaped text argument with a text property as text", async () => {
    const { json } = await get(
      "McOrder/ByNote()",
      new URLSearchParams({ note: GUID_NOTE, $select: "Note" }).toString(),
    );
    expect(json.value).toEqual([{ Guid: expect.any(String), Note: GUID_NOTE }]);
    const upper = await get("McOrder/ByNote()", new URLSearchParams({ note: GUID_NOTE.toUpperCase() }).toString());
    expect(upper.json).toEqual({ value: [] });
  });
});

describe("a collection result", () => {
  it(`answers all ${MANY} records, past the server page and the in-list limit`, async () => {
    const { status, json } = await get("McOrder/FromNumber()", `min=10000&$select=Number&$orderby=Number`);
    expect(status).toBe(200);
    expect(json.value).toHaveLength(MANY);
    expect(json["@odata.nextLink"]).toBeUndefined();
    expect(numbers(json)).toEqual(Array.from({ length: MANY }, (_, i) => 10_000 + i));
  });

  it("is narrowed and shaped by the client's own options", async () => {
    const { json } = await get(
      "McOrder/FromNumber()",
      `min=10000&$filter=Number lt @top&@top=10003&$select=Number&$orderby=Number desc&$count=true`,
    );
    expect(json).toEqual({
      "@odata.count": 3,
      value: [10_002, 10_001, 10_000].map((n) => ({ Guid: expect.any(String), Number: n })),
    });
    const paged = await get("McOrder/FromNumber()", `min=10000&$select=Number&$orderby=Number&$top=2&$skip=5`);
    expect(numbers(paged.json)).toEqual([10_005, 10_006]);
  });

  it("with a key that is not a Guid is the method's fault, not the client's", async () => {
    await expect(get("McOrder/Broken()")).rejects.toThrow(/McOrder.Broken returned "not a key"/);
  });
});
