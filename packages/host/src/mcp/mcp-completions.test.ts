/**
 * What an agent host fills arguments in with and hears back, through the SDK's own clients over
 * real HTTP, on the current revision and a 2025 one: `completion/complete` for the resource
 * templates and the method prompts (entity sets, records by natural-key prefix, enum members,
 * true and false, a reference's targets), the prompts and record resources themselves, log
 * notifications at the level the client asked for (per request on 2026-07-28, `logging/setLevel`
 * on a 2025 session, none without), and bad input — an unknown reference, argument or entity
 * set, a cursor, a prompt argument of the wrong type — answered as JSON-RPC errors that name it.
 */
import { sampleFeatures } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { connect, content, type Listening, listen, type McpTestClient } from "@bizdata/test-kit/mcp-host";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { createTenant, setFeature, setUser } from "../tenants/tenant-admin.js";

let host: Listening;
let admin: Caller;
let token: string;
let current: McpTestClient;
let legacy: McpTestClient;

beforeAll(async () => {
  const tenant = await signedInTenant("mcp-complete");
  admin = tenant.admin;
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  const post = async (entity: string, body: unknown) =>
    expect((await admin.request("POST", `/api/${entity}`, body)).status).toBe(201);
  for (const sku of ["PX-1", "PX-2", "PX-30", "QX-1"]) await post("Product", { SKU: sku, Price: 10 });
  await post("Customer", { Id: "CX-A" });
  await post("Customer", { Id: "CX-B", CreditLimit: 10 });
  await post("SalesOrder", { DocNumber: "SOX-1", SellToCustomer: "CX-A", Details: [{ Product: "PX-1", Quantity: 1 }] });
  await post("SalesOrder", { DocNumber: "SOX-2", SellToCustomer: "CX-B", Status: "Released" });
  host = await listen(tenant.app);
  token = await signIn(tenant.app, admin.tenantId, "admin");
  current = await connect(host.url, token);
  legacy = await connect(host.url, token, { revision: "2025-06-18" });
});

afterAll(async () => {
  await current?.close();
  await legacy?.close();
  await host?.close();
});

const RECORD = { type: "ref/resource", uri: "bizdata://record/{entitySet}/{key}" } as const;
const RECORDS = { type: "ref/resource", uri: "bizdata://records/{entitySet}/{property}/{value}" } as const;

/** the values completing `argument` to `value` */
const completed = async (
  mcp: McpTestClient,
  ref: Parameters<McpTestClient["client"]["complete"]>[0]["ref"],
  name: string,
  value: string,
  context: Record<string, string> = {},
) => (await mcp.client.complete({ ref, argument: { name, value }, context: { arguments: context } })).completion;

/** the JSON-RPC error a request was answered with */
const refusal = async (request: Promise<unknown>) => {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  const { code, message } = err as ProtocolError;
  return { code, message };
};

describe("completion/complete", () => {
  it.each([
    ["2026-07-28", () => current],
    ["2025-06-18", () => legacy],
  ])("completes entity sets, keys by natural-key prefix, enum members and references (%s)", async (_, mcp) => {
    // by prefix, whatever the case: the entity sets of the service document
    const sets = await completed(mcp(), RECORD, "entitySet", "sales");
    expect(sets.values).toEqual(expect.arrayContaining(["SalesInvoice", "SalesOrder"]));
    expect(sets.values.every((s) => s.startsWith("Sales"))).toBe(true);
    expect(sets).toMatchObject({ total: sets.values.length, hasMore: false });
    expect(await completed(mcp(), RECORD, "key", "PX-", { entitySet: "Product" })).toEqual({
      values: ["PX-1", "PX-2", "PX-30"],
      total: 3,
      hasMore: false,
    });
    expect((await completed(mcp(), RECORD, "key", "", { entitySet: "Customer" })).values).toEqual(["CX-A", "CX-B"]);
    expect(await completed(mcp(), RECORD, "key", "ZZ", { entitySet: "Product" })).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    });
    const order = { entitySet: "SalesOrder" };
    expect((await completed(mcp(), RECORDS, "property", "s", order)).values).toEqual(["Status", "SellToCustomer"]);
    expect((await completed(mcp(), RECORDS, "value", "", { ...order, property: "Status" })).values).toEqual([
      "Open",
      "Released",
      "Closed",
    ]);
    expect((await completed(mcp(), RECORDS, "value", "re", { ...order, property: "Status" })).values).toEqual([
      "Released",
    ]);
    // a reference by its target's natural key
    expect((await completed(mcp(), RECORDS, "value", "CX", { ...order, property: "SellToCustomer" })).values).toEqual([
      "CX-A",
      "CX-B",
    ]);
  });

  it("completes a method prompt's record key, booleans and enum parameters", async () => {
    const prompt = (name: string) => ({ type: "ref/prompt", name }) as const;
    expect((await completed(current, prompt("call_SalesOrder_CalculateLineTotal"), "key", "SOX")).values).toEqual([
      "SOX-1",
      "SOX-2",
    ]);
    expect((await completed(current, prompt("call_SalesInvoice_UpdatePrices"), "roundToCents", "t")).values).toEqual([
      "true",
    ]);
    // a number has no list to complete from
    expect(await completed(current, prompt("call_SalesOrder_CalculateLineTotal"), "taxRate", "1")).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    });
    // the edge model's method with an enum parameter, for a tenant with its feature
    const db = await testDatabase();
    const app = createApp({
      db,
      model: edgeModel,
      keys: await loadSigningKeys(db),
      config: loadConfig({ LOG_LEVEL: "silent", MAX_PAGE_SIZE: "50" }),
    });
    const edgeHost = await listen(app);
    const tenantId = uniqueTenant("mcp-edge-complete");
    await createTenant(db, tenantId);
    await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
    await setFeature(db, tenantId, EDGE_FEATURE, true);
    const edge = await connect(edgeHost.url, await signIn(app, tenantId, "admin"));
    try {
      expect((await completed(edge, prompt("call_Gadget_Tune"), "level", "")).values).toEqual(["Low", "High"]);
      expect((await completed(edge, prompt("call_Gadget_Tune"), "level", "h")).values).toEqual(["High"]);
    } finally {
      await edge.close();
      await edgeHost.close();
    }
  });

  it("answers completions for 30 prefixes at once, each its own", async () => {
    const prefixes = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? "PX-" : `PX-${(i % 3) + 1}`));
    const answers = await Promise.all(
      prefixes.map((p) => completed(current, RECORD, "key", p, { entitySet: "Product" })),
    );
    answers.forEach((answer, i) => {
      const prefix = prefixes[i]!;
      expect(answer.values).toEqual(["PX-1", "PX-2", "PX-30"].filter((v) => v.startsWith(prefix)));
    });
  });

  it("refuses an unknown reference, argument or entity set, naming it (-32602)", async () => {
    const complete = (ref: any, name: string, value = "", context: Record<string, string> = {}) =>
      refusal(current.client.complete({ ref, argument: { name, value }, context: { arguments: context } }));
    expect(await complete({ type: "ref/prompt", name: "nope" }, "x")).toEqual({
      code: -32602,
      message: "There is no prompt nope.",
    });
    expect(await complete({ type: "ref/resource", uri: "bizdata://nope/{x}" }, "x")).toEqual({
      code: -32602,
      message: "There is no resource template bizdata://nope/{x}.",
    });
    expect(await complete(RECORD, "colour")).toEqual({
      code: -32602,
      message: "The template bizdata://record/{entitySet}/{key} has no variable colour.",
    });
    expect(await complete(RECORD, "key", "P")).toEqual({
      code: -32602,
      message: "Completing key needs context.arguments.entitySet.",
    });
    expect(await complete(RECORD, "key", "P", { entitySet: "Products" })).toEqual({
      code: -32602,
      message: "There is no entity set Products.",
    });
    expect(await complete({ type: "ref/prompt", name: "call_SalesOrder_CalculateLineTotal" }, "rate")).toEqual({
      code: -32602,
      message: "The prompt call_SalesOrder_CalculateLineTotal has no argument rate.",
    });
    expect(await complete(RECORDS, "value", "", { entitySet: "SalesOrder", property: "Details" })).toEqual({
      code: -32602,
      message: "SalesOrder has no property Details to find records by.",
    });
  });
});

describe("prompts and record resources", () => {
  it("lists a prompt per method, its arguments the key and the parameters, and gives the tool call to make", async () => {
    const { prompts } = await current.client.listPrompts();
    const line = prompts.find((p) => p.name === "call_SalesOrder_CalculateLineTotal");
    expect(line?.arguments).toEqual([
      { name: "key", description: "The SalesOrder: its Guid or its DocNumber.", required: true },
      { name: "taxRate", description: "taxRate (decimal)", required: true },
      { name: "quantity", description: "quantity (integer)", required: true },
      { name: "discount", description: "discount (decimal)", required: false },
    ]);
    const got = await current.client.getPrompt({
      name: "call_SalesOrder_CalculateLineTotal",
      arguments: { key: "SOX-1", taxRate: "0.2", quantity: "3" },
    });
    expect(got.messages).toEqual([
      {
        role: "user",
        content: {
          type: "text",
          text: 'Call the tool call_SalesOrder_CalculateLineTotal with these arguments: {"key":"SOX-1","parameters":{"taxRate":0.2,"quantity":3}}',
        },
      },
    ]);
    // the arguments it names are the tool's, and the tool takes them
    const args = JSON.parse((got.messages[0]!.content as { text: string }).text.split("arguments: ")[1]!);
    expect(content(await current.call("call_SalesOrder_CalculateLineTotal", args))).toEqual({ value: 36 });
    for (const [given, message] of [
      [{ taxRate: "0.2", quantity: "3" }, "call_SalesOrder_CalculateLineTotal needs the argument key."],
      [{ key: "SOX-1", taxRate: "0.2" }, "call_SalesOrder_CalculateLineTotal needs the argument quantity."],
      [
        { key: "SOX-1", taxRate: "a fifth", quantity: "3" },
        'call_SalesOrder_CalculateLineTotal: taxRate must be a number, not "a fifth".',
      ],
      [
        { key: "SOX-1", taxRate: "0.2", quantity: "3", colour: "red" },
        "call_SalesOrder_CalculateLineTotal has no argument colour.",
      ],
    ] as const) {
      expect(
        await refusal(current.client.getPrompt({ name: "call_SalesOrder_CalculateLineTotal", arguments: given })),
      ).toEqual({ code: -32602, message });
    }
    expect(await refusal(current.client.getPrompt({ name: "query_Product" }))).toEqual({
      code: -32602,
      message: "There is no prompt query_Product.",
    });
  });

  it("reads a record by natural key, and the records with a property's value", async () => {
    const { resourceTemplates } = await current.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "bizdata://model/{entitySet}",
      "bizdata://record/{entitySet}/{key}",
      "bizdata://records/{entitySet}/{property}/{value}",
    ]);
    const read = async (uri: string) =>
      JSON.parse(((await current.client.readResource({ uri })).contents[0] as { text: string }).text);
    expect(await read("bizdata://record/Product/PX-30")).toMatchObject({
      Guid: expect.any(String),
      SKU: "PX-30",
      Price: 10,
    });
    expect(await read("bizdata://records/SalesOrder/Status/Released")).toEqual({
      value: [{ Guid: expect.any(String), DocNumber: "SOX-2" }],
    });
    expect(await read("bizdata://records/SalesOrder/SellToCustomer/CX-A")).toEqual({
      value: [{ Guid: expect.any(String), DocNumber: "SOX-1" }],
    });
    expect(await refusal(current.client.readResource({ uri: "bizdata://record/Product/NOPE" }))).toEqual({
      code: -32602,
      message: 'bizdata://record/Product/NOPE: No Product has SKU "NOPE".',
    });
    expect(await refusal(current.client.readResource({ uri: "bizdata://record/Nothing/1" }))).toEqual({
      code: -32602,
      message: "Resource bizdata://record/Nothing/1 not found.",
    });
  });
});

describe("lists come in one page", () => {
  it.each([
    ["2026-07-28", () => current],
    ["2025-06-18", () => legacy],
  ])("refuses a cursor on every list (%s)", async (_, mcp) => {
    const { client } = mcp();
    for (const list of [
      () => client.listTools({ cursor: "page-2" }),
      () => client.listResources({ cursor: "page-2" }),
      () => client.listResourceTemplates({ cursor: "page-2" }),
      () => client.listPrompts({ cursor: "page-2" }),
    ]) {
      expect(await refusal(list())).toEqual({
        code: -32602,
        message: 'The cursor "page-2" is not one of this server\'s: its lists come in one page.',
      });
    }
  });
});

describe("log notifications", () => {
  const order = (doc: string) => ({
    record: { DocNumber: doc, SellToCustomer: "CX-B", Details: [{ Product: "PX-1", Quantity: 2 }] },
  });

  it("sends a 2026-07-28 request what its own log level asks for, and nothing without one", async () => {
    const mcp = await connect(host.url, token);
    try {
      await mcp.call("query_Product", { select: "SKU", top: 1 });
      expect(mcp.logs).toEqual([]);
      await mcp.call("query_Product", { select: "SKU", top: 1 }, { logLevel: "debug" });
      expect(mcp.logs).toEqual([
        {
          level: "debug",
          logger: "bizdata.api",
          data: {
            tool: "query_Product",
            call: "GET /api/Product?%24select=SKU&%24top=2",
            status: 200,
            ms: expect.any(Number),
          },
        },
      ]);
      mcp.logs.length = 0;
      // over CX-B's limit of 10: the commit asks (no elicitation here: back to the agent); answered, it warns
      const { workflowId } = content(await mcp.call("create_SalesOrder", order("LOG-1"), { logLevel: "warning" }));
      expect(mcp.logs).toEqual([]);
      const warned = [
        {
          level: "warning",
          logger: "bizdata.tool",
          data: expect.objectContaining({
            tool: "workflow_commit",
            text: "The order total 20 is over the credit limit 10 of customer CX-B.",
          }),
        },
      ];
      const { questions } = content(await mcp.call("workflow_commit", { workflowId }, { logLevel: "warning" }));
      expect(mcp.logs).toEqual(warned);
      mcp.logs.length = 0;
      // the answer asked for no log: it gets none
      await mcp.call("workflow_answer", { workflowId, promptId: questions[0].promptId, choice: "continue" });
      expect(mcp.logs).toEqual([]);
      await mcp.call("workflow_commit", { workflowId }, { logLevel: "warning" });
      expect(mcp.logs).toEqual(warned);
      mcp.logs.length = 0;
      await mcp.call("get_Product", { key: "NOPE" }, { logLevel: "error" });
      expect(mcp.logs).toEqual([
        {
          level: "error",
          logger: "bizdata.tool",
          data: { tool: "get_Product", error: expect.objectContaining({ code: "NotFound" }) },
        },
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("sends a 2025 session what logging/setLevel asked for, and nothing before", async () => {
    const mcp = await connect(host.url, token, { revision: "2025-11-25" });
    try {
      await mcp.call("query_Product", { select: "SKU", top: 1 });
      expect(mcp.logs).toEqual([]);
      await mcp.client.setLoggingLevel("debug");
      await mcp.call("query_Product", { select: "SKU", top: 1 });
      expect(mcp.logs.map((l) => [l.level, l.logger])).toEqual([["debug", "bizdata.api"]]);
      mcp.logs.length = 0;
      await mcp.client.setLoggingLevel("error");
      await mcp.call("query_Product", { select: "SKU", top: 1 });
      await mcp.call("get_Product", { key: "NOPE" });
      expect(mcp.logs.map((l) => [l.level, l.logger])).toEqual([["error", "bizdata.tool"]]);
      // another session has its own level
      const other = await connect(host.url, token, { revision: "2025-11-25" });
      await other.call("get_Product", { key: "NOPE" });
      expect(other.logs).toEqual([]);
      await other.close();
      // a level that is none: the SDK's own check of the request names the levels there are
      const unknown = await refusal(mcp.client.setLoggingLevel("loud" as never));
      expect(unknown.message).toContain('expected one of \\"debug\\"|\\"info\\"');
    } finally {
      await mcp.close();
    }
  });
});
