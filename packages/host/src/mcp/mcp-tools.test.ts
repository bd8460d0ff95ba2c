/**
 * The MCP endpoint's tools and resources, through the SDK's own client over real HTTP: the tool
 * list and its input schemas checked against the model's definitions (not against the code that
 * generates them), reads with OData options, natural keys and Read methods, the row limit, bad
 * input answered as tool errors that name what is wrong, and the model resources.
 */
import type { AnyEntity, MethodDeclaration, Model, PersistedField } from "@bizdata/core";
import { sampleFeatures, sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { connect, content, type Listening, listen, type McpTestClient } from "@bizdata/test-kit/mcp-host";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import type { Tool } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { createTenant, setFeature, setUser } from "../tenants/tenant-admin.js";

let host: Listening;
let mcp: McpTestClient;
let admin: Caller;
let tools: Tool[];

const ok = async (res: Response | Promise<Response>) => {
  const r = await res;
  expect(r.status, await r.clone().text()).toBeLessThan(300);
  return (await r.json()) as any;
};

beforeAll(async () => {
  const tenant = await signedInTenant("mcp-tools");
  admin = tenant.admin;
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  const post = (entity: string, body: unknown) => ok(admin.request("POST", `/api/${entity}`, body));
  await post("Country", { Code: "US", Name: "United States" });
  for (const [email, state] of [
    ["pa@example.com", "PA"],
    ["ny@example.com", "NY"],
  ]) {
    await post("Contact", {
      Email: email,
      FirstName: "Ann",
      LastName: state,
      MailingAddress: { State: state, Country: "US" },
    });
  }
  await post("Customer", { Id: "C-PA", Name: "Penn Ltd", PrimaryContact: "pa@example.com" });
  await post("Customer", { Id: "C-NY", Name: "York Ltd", PrimaryContact: "ny@example.com" });
  await post("Product", { SKU: "P-1", Price: 10, Cost: 6 });
  await post("Product", { SKU: "P-2", Price: 4, Cost: 2 });
  for (const [doc, customer, sku, quantity] of [
    ["SO-1", "C-PA", "P-1", 2],
    ["SO-2", "C-NY", "P-2", 1],
    ["SO-3", "C-PA", "P-2", 5],
  ] as const) {
    await post("SalesOrder", {
      DocNumber: doc,
      SellToCustomer: customer,
      Details: [{ Product: sku, Quantity: quantity }],
    });
  }
  host = await listen(tenant.app);
  mcp = await connect(host.url, await signIn(tenant.app, admin.tenantId, "admin"));
  tools = (await mcp.client.listTools()).tools;
});

afterAll(async () => {
  await mcp?.close();
  await host?.close();
});

const tool = (name: string, list = tools) => {
  const found = list.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};
const schema = (t: Tool) => t.inputSchema as { properties: Record<string, any>; required?: string[] };

/** what the model's definitions say a create needs and takes (independently of the generator) */
function writable(model: Model, entity: AnyEntity, inverse?: string) {
  const fields = Object.entries(entity.fields as Record<string, PersistedField>).filter(
    ([name, f]) => name !== inverse && !("readOnly" in f && f.readOnly && name !== "Guid"),
  );
  return {
    names: fields.map(([name]) => name).sort(),
    required: fields
      .filter(([name, f]) => name !== "Guid" && "required" in f && f.required && !("default" in f))
      .map(([name]) => name)
      .sort(),
    collections: fields.flatMap(([name, f]) => (f.kind === "collection" ? [{ name, field: f }] : [])),
    model,
  };
}

/** the parameters a call needs: non-nullable without a default (spec 4.8) */
const requiredParams = (m: MethodDeclaration<any, any>) =>
  Object.entries(m.params as Record<string, { required?: boolean }>)
    .filter(([, f]) => f.required === true && !("default" in f))
    .map(([name]) => name)
    .sort();

function checkAgainstModel(model: Model, list: Tool[], features: ReadonlySet<string>) {
  const sets = [...model.entities.values()];
  for (const entity of sets) {
    const name = entity.name;
    for (const kind of ["query", "get", "update", "delete"])
      expect(list.map((t) => t.name)).toContain(`${kind}_${name}`);
    expect(schema(tool(`get_${name}`, list)).required).toEqual(["key"]);
    expect(tool(`query_${name}`, list).annotations?.readOnlyHint).toBe(true);
    expect(tool(`create_${name}`, list).annotations?.readOnlyHint).toBe(false);
    const expected = writable(model, entity);
    const record = schema(tool(`create_${name}`, list)).properties.record;
    expect(Object.keys(record.properties).sort(), `create_${name}`).toEqual(expected.names);
    expect([...(record.required ?? [])].sort(), `create_${name} required`).toEqual(expected.required);
    expect(record.additionalProperties).toBe(false);
    for (const { name: collection, field } of expected.collections) {
      const items = record.properties[collection].items;
      const inner = writable(model, field.target, field.inverse);
      expect(Object.keys(items.properties).sort(), `${name}.${collection}`).toEqual(inner.names);
      expect([...(items.required ?? [])].sort(), `${name}.${collection} required`).toEqual(inner.required);
    }
    const changes = schema(tool(`update_${name}`, list)).properties.changes;
    expect(changes.required).toBeUndefined();
    expect(Object.keys(changes.properties)).not.toContain("Guid");
  }
  for (const entity of model.entities.values()) {
    for (const [method, declaration] of Object.entries(entity.methods)) {
      const available = model.subscribers(declaration).some((s) => s.feature === undefined || features.has(s.feature));
      const name = `call_${entity.name}_${method}`;
      if (!available) {
        expect(list.map((t) => t.name)).not.toContain(name);
        continue;
      }
      const t = tool(name, list);
      expect(t.annotations?.readOnlyHint, name).toBe(declaration.type === "read");
      expect(t.description).toContain(declaration.description);
      const { properties, required = [] } = schema(t);
      const params = requiredParams(declaration);
      const declared = Object.keys(declaration.params).sort();
      expect(Object.keys(properties.parameters?.properties ?? {}).sort(), name).toEqual(declared);
      expect([...(properties.parameters?.required ?? [])].sort(), `${name} required`).toEqual(params);
      expect(required.includes("parameters"), name).toBe(params.length > 0);
      expect(required.includes("key"), name).toBe(!declaration.isStatic);
    }
  }
}

describe("MCP tools: the list", () => {
  it("has a query, read, create, update and delete per entity set and a call per method, typed from the model", () => {
    checkAgainstModel(sampleModel, tools, new Set(sampleFeatures));
    expect(tools.filter((t) => t.name.startsWith("workflow_")).map((t) => t.name)).toEqual([
      "workflow_start",
      "workflow_answer",
      "workflow_commit",
      "workflow_close",
    ]);
    // owned collection items have a set of their own, written as part of their owner
    expect(tools.map((t) => t.name)).toContain("update_SalesOrderDetail");
    // a reference takes the target's Guid or natural key; computed properties are not written
    const order = schema(tool("create_SalesOrder")).properties.record.properties;
    expect(order.SellToCustomer.description).toContain("its Guid or its Id");
    expect(order.TotalPrice).toBeUndefined();
    expect(order.Status.enum).toEqual(["Open", "Released", "Closed", null]);
    const line = schema(tool("call_SalesOrder_CalculateLineTotal")).properties.parameters.properties;
    expect(line.discount).toMatchObject({ type: "number", default: 0 });
  });

  it("follows the tenant's features, and gives enums, complex values and nested collections their shapes", async () => {
    // the edge model's tools are only listed here: its tables are never needed
    const db = await testDatabase();
    const config = loadConfig({ LOG_LEVEL: "silent", MAX_PAGE_SIZE: "50" });
    const app = createApp({ db, model: edgeModel, keys: await loadSigningKeys(db), config });
    const edgeHost = await listen(app);
    try {
      const list = async (features: string[]) => {
        const tenantId = uniqueTenant("mcp-edge");
        await createTenant(db, tenantId);
        await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
        for (const f of features) await setFeature(db, tenantId, f, true);
        const client = await connect(edgeHost.url, await signIn(app, tenantId, "admin"));
        const { tools: found } = await client.client.listTools();
        await client.close();
        return found;
      };
      const without = await list([]);
      const withFeature = await list([EDGE_FEATURE]);
      checkAgainstModel(edgeModel, without, new Set());
      checkAgainstModel(edgeModel, withFeature, new Set([EDGE_FEATURE]));
      expect(without.map((t) => t.name)).not.toContain("call_Gadget_Tune");
      expect(withFeature.map((t) => t.name)).toContain("call_Gadget_Tune");
      const gadget = schema(tool("create_Gadget", withFeature)).properties.record.properties;
      expect(gadget.Code).toMatchObject({ type: "string", maxLength: 20, description: "The gadget's code" });
      expect(gadget.Size).toEqual({ type: "string", enum: ["S", "M", "L"] });
      expect(gadget.Address.type).toEqual(["object", "null"]);
      expect(gadget.Address.properties.Country.description).toContain("A Country: its Guid or its Code.");
      expect(gadget.Lines.items.properties.Parts.items.properties.Fitted.format).toBe("date-time");
      expect(gadget.Lines.items.properties.Gadget).toBeUndefined();
      const tune = schema(tool("call_Gadget_Tune", withFeature)).properties.parameters;
      expect(tune.properties.level).toMatchObject({ enum: ["Low", "High"], description: "How far to go" });
      expect(tune.required).toEqual(["level"]);
    } finally {
      await edgeHost.close();
    }
  });
});

describe("MCP tools: reading", () => {
  it("queries with a path filter and $expand", async () => {
    const result = await mcp.call("query_SalesOrder", {
      filter: "SellToCustomer/PrimaryContact/MailingAddress/State eq 'PA'",
      select: "DocNumber,TotalPrice",
      expand: "SellToCustomer($select=Id),Details($select=Quantity;$expand=Product($select=SKU))",
      orderby: "DocNumber",
      count: true,
    });
    expect(result.isError).toBeFalsy();
    const { value, count, more } = content(result);
    expect(count).toBe(2);
    expect(more).toBeUndefined();
    expect(value).toEqual([
      {
        Guid: expect.any(String),
        DocNumber: "SO-1",
        TotalPrice: 20,
        SellToCustomer: { Guid: expect.any(String), Id: "C-PA" },
        Details: [{ Guid: expect.any(String), Quantity: 2, Product: { Guid: expect.any(String), SKU: "P-1" } }],
      },
      {
        Guid: expect.any(String),
        DocNumber: "SO-3",
        TotalPrice: 20,
        SellToCustomer: { Guid: expect.any(String), Id: "C-PA" },
        Details: [{ Guid: expect.any(String), Quantity: 5, Product: { Guid: expect.any(String), SKU: "P-2" } }],
      },
    ]);
    // the text content carries the same JSON, for clients that read only text
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(content(result));
  });

  it("aggregates with $apply", async () => {
    const result = await mcp.call("query_SalesOrder", {
      apply: "groupby((SellToCustomer/Id),aggregate(TotalPrice with sum as Total,$count as Orders))",
      orderby: "Total desc",
    });
    expect(content(result).value).toEqual([
      { SellToCustomer: { Id: "C-PA" }, Total: 40, Orders: 2 },
      { SellToCustomer: { Id: "C-NY" }, Total: 4, Orders: 1 },
    ]);
  });

  it("cuts the rows at top and says where to go on", async () => {
    const first = content(await mcp.call("query_SalesOrder", { select: "DocNumber", orderby: "DocNumber", top: 2 }));
    expect(first.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["SO-1", "SO-2"]);
    expect(first).toMatchObject({ more: true, nextSkip: 2 });
    const rest = content(
      await mcp.call("query_SalesOrder", { select: "DocNumber", orderby: "DocNumber", top: 2, skip: 2 }),
    );
    expect(rest.value.map((o: { DocNumber: string }) => o.DocNumber)).toEqual(["SO-3"]);
    expect(rest.more).toBeUndefined();
  });

  it("returns at most MCP_ROW_LIMIT rows when no top is given", async () => {
    const db = await testDatabase();
    const config = loadConfig({ LOG_LEVEL: "silent", MAX_PAGE_SIZE: "50", MCP_ROW_LIMIT: "2" });
    const limited = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
    const limitedHost = await listen(limited);
    const client = await connect(limitedHost.url, await signIn(limited, admin.tenantId, "admin"));
    try {
      const result = content(await client.call("query_SalesOrder", { select: "DocNumber", orderby: "DocNumber" }));
      expect(result).toEqual({
        value: [
          { Guid: expect.any(String), DocNumber: "SO-1" },
          { Guid: expect.any(String), DocNumber: "SO-2" },
        ],
        more: true,
        nextSkip: 2,
      });
      const tooMany = await client.call("query_SalesOrder", { top: 3 });
      expect(content(tooMany).error.message).toBe("query_SalesOrder: top must be <= 2.");
    } finally {
      await client.close();
      await limitedHost.close();
    }
  });

  it("reads one record by Guid or by natural key", async () => {
    const byKey = content(
      await mcp.call("get_Customer", { key: "C-PA", select: "Name", expand: "PrimaryContact($select=Email)" }),
    );
    expect(byKey.value).toEqual({
      Guid: expect.any(String),
      Name: "Penn Ltd",
      PrimaryContact: { Guid: expect.any(String), Email: "pa@example.com" },
    });
    const byGuid = content(await mcp.call("get_Customer", { key: byKey.value.Guid, select: "Id" }));
    expect(byGuid.value).toEqual({ Guid: byKey.value.Guid, Id: "C-PA" });
    // a natural key with a quote reaches the filter as a value, not as syntax
    const missing = await mcp.call("get_Customer", { key: "C' or Id ne 'x" });
    expect(missing.isError).toBe(true);
    expect(content(missing)).toEqual({
      error: { code: "NotFound", message: `No Customer has Id "C' or Id ne 'x".`, target: "key" },
      status: 404,
    });
  });

  it("calls Read methods: on a record by natural key with parameters, and on the set returning rows", async () => {
    const total = await mcp.call("call_SalesOrder_CalculateLineTotal", {
      key: "SO-1",
      parameters: { taxRate: 0.5, quantity: 3 },
    });
    expect(content(total)).toEqual({ value: 45 });
    const markup = await mcp.call("call_Product_GetDefaultMarkup", { key: "P-2" });
    expect(content(markup)).toEqual({ value: 100 });
    const open = await mcp.call("call_SalesOrder_GetOpenOrders", {
      parameters: { customerId: "C-PA" },
      select: "DocNumber",
      orderby: "DocNumber desc",
      top: 1,
    });
    expect(content(open)).toEqual({
      value: [{ Guid: expect.any(String), DocNumber: "SO-3" }],
      more: true,
      nextSkip: 1,
    });
  });
});

describe("MCP tools: bad input", () => {
  it("answers a wrong query as a tool error with the API's code and message", async () => {
    const unknown = await mcp.call("query_Product", { filter: "sku eq 'P-1'" });
    expect(unknown.isError).toBe(true);
    expect(content(unknown).error).toEqual({
      code: "UnknownProperty",
      message: 'Product has no property "sku" (in $filter); names are case sensitive: did you mean "SKU"?',
      target: "$filter",
    });
    const computed = await mcp.call("query_Contact", { filter: "FullName eq 'Ann PA'" });
    expect(content(computed).error.code).toBe("VirtualPropertyNotAllowed");
    const syntax = await mcp.call("query_Product", { orderby: "SKU sideways" });
    expect(content(syntax).error).toMatchObject({ code: "QuerySyntaxError", target: "$orderby" });
  });

  it("refuses arguments outside the tool's input schema, naming each problem and where it is", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["query_Product", { top: 5000 }, "top must be <= 49"],
      ["query_Product", { colour: "red" }, 'The arguments has no property "colour"'],
      ["get_Product", {}, 'The arguments need "key"'],
      [
        "call_SalesOrder_CalculateLineTotal",
        { key: "SO-1", parameters: { taxRate: 0.1 } },
        'parameters needs "quantity"',
      ],
      [
        "create_SalesOrder",
        { record: { DocNumber: "X", Details: [{ Product: "P-1", Quantity: "two" }] } },
        "record.Details.0.Quantity must be number",
      ],
      [
        "create_SalesOrder",
        { record: { DocNumber: "X", Status: "Lost" } },
        'record.Status must be one of "Open", "Released", "Closed", null',
      ],
    ];
    for (const [name, args, problem] of cases) {
      const result = await mcp.call(name, args);
      expect(result.isError, name).toBe(true);
      expect(content(result).error.code).toBe("InvalidArguments");
      expect(content(result).error.message).toContain(`${name}: `);
      expect(content(result).error.message).toContain(problem);
    }
  });

  it("answers an unknown tool with a protocol error naming it", async () => {
    await expect(mcp.call("query_Nothing")).rejects.toThrow(/Tool query_Nothing not found/);
  });
});

describe("MCP resources", () => {
  const read = async (uri: string) => {
    const { contents } = await mcp.client.readResource({ uri });
    return JSON.parse((contents[0] as { text: string }).text);
  };

  it("lists the model, each entity set and $metadata", async () => {
    const { resources } = await mcp.client.listResources();
    // every entity has its set, owned items too
    const sets = [...sampleModel.entities.keys()];
    expect(resources.map((r) => r.uri).sort()).toEqual(
      ["bizdata://model", "bizdata://model/$metadata", ...sets.map((s) => `bizdata://model/${s}`)].sort(),
    );
    const overview = await read("bizdata://model");
    expect(overview.entitySets).toContainEqual({
      name: "SalesOrderImport",
      naturalKey: "DocNumber",
      virtual: true,
      resource: "bizdata://model/SalesOrderImport",
    });
  });

  it("describes an entity set: types, natural key, references, collections, methods, and what cannot be filtered", async () => {
    const contact = await read("bizdata://model/Contact");
    expect(contact.naturalKey).toEqual({ property: "Email", unique: true });
    expect(contact.nonFilterable).toEqual(["FullName", "RecordReadOnly"]);
    expect(contact.properties).toContainEqual({
      name: "FullName",
      type: "Edm.String",
      nullable: true,
      maxLength: 255,
      computed: true,
    });
    const address = contact.properties.find((p: { name: string }) => p.name === "MailingAddress");
    expect(address.references).toEqual([{ name: "Country", target: "Country", nullable: true }]);
    const order = await read("bizdata://model/SalesOrder");
    expect(order.properties).toContainEqual({
      name: "Status",
      type: "enum",
      values: ["Open", "Released", "Closed"],
      nullable: true,
      default: "Open",
    });
    expect(order.collections[0]).toMatchObject({
      name: "Details",
      itemType: "SalesOrderDetail",
      inverse: "SalesOrder",
    });
    expect(order.methods.find((m: { name: string }) => m.name === "CalculateLineTotal")).toMatchObject({
      kind: "read",
      static: false,
      tool: "call_SalesOrder_CalculateLineTotal",
      parameters: [
        { name: "taxRate", required: true },
        { name: "quantity", required: true },
        { name: "discount", required: false, default: "0" },
      ],
    });
  });

  it("serves $metadata as the same CSDL JSON the API answers", async () => {
    const api = await ok(admin.request("GET", "/api/$metadata?$format=json"));
    expect(await read("bizdata://model/$metadata")).toEqual(api);
  });

  it("answers an unknown resource with an error naming it", async () => {
    await expect(mcp.client.readResource({ uri: "bizdata://model/Nothing" })).rejects.toThrow(
      /Resource bizdata:\/\/model\/Nothing not found/,
    );
  });
});
