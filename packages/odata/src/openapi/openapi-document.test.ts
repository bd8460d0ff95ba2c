/**
 * The OpenAPI document of a model: a valid OpenAPI 3.1 document (packages/test-kit/src/openapi-validators.ts) for
 * the sample model and for the edge model, whose paths are the addresses the service answers and
 * whose schemas carry the facets `$metadata` declares, with the security the options ask for.
 */
import { sampleModel } from "@bizdata/examples";
import { EDGE_FEATURE, edgeModel } from "@bizdata/test-kit/metadata-models";
import { openApiErrors } from "@bizdata/test-kit/openapi-validators";
import { describe, expect, it } from "vitest";
import { buildEdm } from "../metadata/build-edm.js";
import { openApiDocument } from "./openapi-document.js";
import type { OpenApiDocument, Operation, Schema } from "./openapi-types.js";

type Mutable = { [key: string]: any };

const sample = openApiDocument(sampleModel, { serverUrl: "/api" });
const edge = openApiDocument(edgeModel, { serverUrl: "https://example.com/services/edge" });

const operation = (doc: OpenApiDocument, path: string, method: "get" | "post" | "patch" | "delete"): Operation => {
  const found = doc.paths[path]?.[method];
  if (found === undefined) throw new Error(`no ${method} ${path}`);
  return found;
};
const schema = (doc: OpenApiDocument, name: string): Schema => {
  const found = doc.components.schemas[name];
  if (found === undefined) throw new Error(`no schema ${name}`);
  return found;
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonSchema = (op: Operation, status: string) =>
  (op.responses[status] as { content: Record<string, { schema: Schema }> }).content["application/json"]!.schema;

describe("openApiDocument() is valid OpenAPI 3.1", () => {
  it.each([
    ["the sample model", sample],
    ["the edge model", edge],
    ["the edge model without its feature", openApiDocument(edgeModel, { serverUrl: "/api", features: new Set() })],
    [
      "the edge model with OAuth issuers",
      openApiDocument(edgeModel, {
        serverUrl: "/api",
        oauth: {
          issuers: [
            { issuer: "https://a.example" },
            {
              issuer: "https://b.example",
              authorizationEndpoint: "https://b.example/authorize",
              tokenEndpoint: "https://b.example/token",
            },
          ],
          scopes: { read: "r", write: "w" },
        },
      }),
    ],
  ])("for %s", async (_, doc) => {
    expect(await openApiErrors(doc)).toEqual([]);
  });

  // the checks above can fail: each of these breaks one rule, and the validators name it
  it.each<[string, (doc: Mutable) => void, RegExp]>([
    ["no info", (d) => delete d.info, /info/],
    [
      "a reference to nothing",
      (d) => (d.paths["/Product"].get.responses["200"].content["application/json"].schema = ref("Nope")),
      /Nope/,
    ],
    ["a misspelt keyword", (d) => (d.components.schemas["bizdata.Product"].properties.SKU.maxLenght = 3), /maxLenght/],
    [
      "a negative maxLength",
      (d) => (d.components.schemas["bizdata.Product"].properties.SKU.maxLength = -1),
      /components\/schemas\/bizdata.Product.*maxLength/,
    ],
    [
      "an operationId twice",
      (d) => (d.paths["/Product"].get.operationId = "Product_create"),
      /operationId Product_create/,
    ],
    [
      "a path variable without parameter",
      (d) => d.paths["/Product({Guid})"].parameters.shift(),
      /\{Guid\} has no path parameter/,
    ],
  ])("and the validators find %s", async (_, breakIt, message) => {
    const broken = structuredClone(sample) as Mutable;
    breakIt(broken);
    const errors = await openApiErrors(broken);
    expect(errors.join("\n")).toMatch(message);
  });
});

describe("openApiDocument() of the sample model", () => {
  it("has the service's addresses: entity sets, methods, $batch, workflows, sign-in", () => {
    const sets = buildEdm(sampleModel, { features: new Set() }).schema.container.entitySets.map((s) => s.name);
    expect(Object.keys(sample.paths)).toEqual([
      "/",
      "/$metadata",
      "/$batch",
      ...sets.flatMap((s) => [`/${s}`, `/${s}/$count`, `/${s}({Guid})`]),
      "/Product({Guid})/GetDefaultMarkup()",
      "/SalesOrder({Guid})/ReorderFrom",
      "/SalesOrder({Guid})/CalculateLineTotal()",
      "/SalesOrder/GetOpenOrders()",
      "/SalesInvoice({Guid})/UpdatePrices",
      "/Journal({Guid})/Post",
      "/workflow",
      "/workflow/active",
      "/workflow/{workflowId}",
      "/workflow/commit",
      "/userprompts/{promptId}/answer/{choice}",
      "/auth/signin",
      "/auth/refresh",
      "/auth/signout",
    ]);
    for (const s of sets) {
      expect(Object.keys(sample.paths[`/${s}`]!)).toEqual(["parameters", "get", "post"]);
      expect(Object.keys(sample.paths[`/${s}({Guid})`]!)).toEqual(["parameters", "get", "patch", "delete"]);
    }
    expect(sample.tags.slice(0, sets.length).map((t) => t.name)).toEqual(sets);
  });

  it("lists with every system query option, $top bounded by the page size", () => {
    const names = (doc: OpenApiDocument) =>
      operation(doc, "/Product", "get").parameters!.map((p) => {
        const name = "$ref" in p ? p.$ref.split("/").at(-1)! : p.name;
        return doc.components.parameters[name]?.name ?? name;
      });
    expect(names(sample)).toEqual([
      "$filter",
      "$select",
      "$expand",
      "$orderby",
      "$top",
      "$skip",
      "$count",
      "$compute",
      "$apply",
    ]);
    expect(sample.components.parameters.top!.schema).toEqual({ type: "integer", minimum: 0, maximum: 1000 });
    const small = openApiDocument(sampleModel, { serverUrl: "/api", maxPageSize: 50 });
    expect(small.components.parameters.top!.schema.maximum).toBe(50);
  });

  it("names the server, and takes a title and version", () => {
    expect(sample.servers).toEqual([{ url: "/api" }]);
    expect(sample.info).toMatchObject({ title: "bizdata API", version: "1" });
    const named = openApiDocument(sampleModel, { serverUrl: "https://x.example/api", title: "Sales", version: "2.1" });
    expect(named.servers).toEqual([{ url: "https://x.example/api" }]);
    expect(named.info).toMatchObject({ title: "Sales", version: "2.1" });
  });

  it("asks for the create body, answers the record, and offers Prefer and the workflow headers", () => {
    const create = operation(sample, "/SalesOrder", "post");
    expect(create.requestBody?.content["application/json"]?.schema).toEqual(ref("bizdata.SalesOrder-create"));
    expect(jsonSchema(create, "201")).toEqual({ allOf: [ref("bizdata.SalesOrder"), ref("Prompts")] });
    expect(create.parameters).toContainEqual({ $ref: "#/components/parameters/prefer" });
    expect(sample.paths["/SalesOrder"]!.parameters).toEqual([
      { $ref: "#/components/parameters/workflowId" },
      { $ref: "#/components/parameters/workflowIndex" },
    ]);
    expect(operation(sample, "/SalesOrder({Guid})", "patch").requestBody?.content["application/json"]?.schema).toEqual(
      ref("bizdata.SalesOrder-update"),
    );
  });
});

describe("openApiDocument() schemas carry the facets of $metadata", () => {
  const gadget = schema(edge, "edge.Gadget");

  it.each<[string, Schema]>([
    ["Guid", { type: "string", format: "uuid" }],
    ["Code", { type: "string", maxLength: 20, description: "The gadget's code" }],
    ["Note", { type: ["string", "null"], maxLength: 255, default: 'says "hi" & <bye>' }],
    ["Count", { type: ["integer", "null"], format: "int32", default: 3 }],
    // precision 9, scale 3: steps of 0.001 and fewer than 10^6 in magnitude
    [
      "Ratio",
      {
        type: ["number", "null"],
        format: "decimal",
        multipleOf: 0.001,
        exclusiveMinimum: -1_000_000,
        exclusiveMaximum: 1_000_000,
        default: 0.5,
      },
    ],
    ["Active", { type: ["boolean", "null"], default: true }],
    ["Since", { type: ["string", "null"], format: "date", default: "2026-01-01" }],
    // values that are no identifiers cannot be an enum type: a string as long as the longest
    ["Phase", { type: ["string", "null"], maxLength: 11, default: "Done" }],
    ["Size", ref("edge.GadgetSize")],
    ["Address", { anyOf: [ref("edge.GadgetAddress"), { type: "null" }] }],
    ["Shipping", { anyOf: [ref("edge.GadgetAddress"), { type: "null" }] }],
    ["Label", { anyOf: [ref("edge.GadgetLabel"), { type: "null" }], description: "Big or small", readOnly: true }],
    ["RecordReadOnly", expect.objectContaining({ type: "array", items: { type: "string" }, readOnly: true })],
    ["Lines", { type: "array", items: ref("edge.Line") }],
  ])("Gadget.%s", (property, expected) => {
    expect(gadget.properties![property]).toEqual(expected);
  });

  it("declares enum types and complex types as schemas of their own", () => {
    expect(schema(edge, "edge.GadgetSize")).toEqual({ type: "string", enum: ["S", "M", "L"] });
    expect(schema(edge, "edge.GadgetAddress").properties).toEqual({
      Line: { type: ["string", "null"], maxLength: 80 },
      Country: {
        anyOf: [
          { anyOf: [{ type: "string", description: "The Guid or the Code of a Country." }, ref("edge.Country")] },
          { type: "null" },
        ],
      },
    });
  });

  it("reads a reference as the Guid or the expanded record, and writes it as Guid or natural key", () => {
    const key = { type: "string", description: "The Guid or the Code of a Gadget." };
    expect(schema(edge, "edge.Line").properties!.Gadget).toEqual({ anyOf: [key, ref("edge.Gadget")] });
    expect(schema(edge, "edge.GadgetAddress-update").properties!.Country).toEqual({
      type: ["string", "null"],
      description: "The Guid or the Code of a Country.",
    });
    // a target without a natural key of its own is named by its Guid
    expect(schema(edge, "edge.Kind-update").properties!.Detail).toEqual({
      type: ["string", "null"],
      description: "The Guid of a Line.",
    });
  });

  it("requires on create what has no default, and leaves out what the service computes", () => {
    const create = schema(edge, "edge.Gadget-create");
    expect(create.required).toEqual(["Code", "Size"]);
    expect(Object.keys(create.properties!)).not.toContain("Label");
    expect(Object.keys(create.properties!)).not.toContain("RecordReadOnly");
    expect(create.properties!.Guid).toEqual({ type: "string", format: "uuid" });
    expect(create.properties!.Lines).toEqual({ type: "array", items: ref("edge.Line-create") });
    expect(create.properties!.Address).toEqual({ anyOf: [ref("edge.GadgetAddress-update"), { type: "null" }] });
    expect(create.description).toContain("Natural key: Code");
    // an owned item's reference to its owner is set by the owner it is written with, which refuses it in the item
    expect(schema(edge, "edge.Line-create").required).toBeUndefined();
    expect(schema(edge, "edge.Line-create").properties!.Gadget).toBeUndefined();
    expect(schema(edge, "edge.Line-update").properties!.Gadget).toBeUndefined();
  });

  it("requires nothing on update, and names an owned item (never the record) by its Guid", () => {
    const update = schema(edge, "edge.Gadget-update");
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties!)).not.toContain("Guid");
    expect(update.properties!.Lines).toEqual({ type: "array", items: ref("edge.Line-update") });
    expect(schema(edge, "edge.Line-update").properties!.Guid).toEqual({ type: "string", format: "uuid" });
  });
});

describe("openApiDocument() methods", () => {
  it("calls a Function with GET and its parameters in the query, an Action with POST and a JSON body", () => {
    const catalog = operation(edge, "/Gadget/Catalog()", "get");
    expect(catalog.parameters![0]).toEqual({
      name: "since",
      in: "query",
      required: false,
      schema: { type: ["string", "null"], format: "date-time" },
    });
    const find = operation(edge, "/Gadget/Find()", "get");
    expect(find.parameters![0]).toEqual({
      name: "code",
      in: "query",
      required: true,
      schema: { type: "string", maxLength: 20 },
    });
    const tune = operation(edge, "/Gadget({Guid})/Tune", "post");
    expect(tune.summary).toBe("Tunes the gadget");
    expect(tune.requestBody).toMatchObject({
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["level"],
            additionalProperties: false,
            properties: {
              level: { allOf: [ref("edge.GadgetTuneLevel")], description: "How far to go" },
              // a parameter named like the binding parameter is an ordinary parameter
              _it: {
                type: ["string", "null"],
                maxLength: 255,
                description: "A parameter named like the binding parameter",
              },
            },
          },
        },
      },
    });
    expect(edge.paths["/Gadget({Guid})/Tune"]!.parameters![0]).toMatchObject({ name: "Guid", in: "path" });
  });

  it.each<[string, "get" | "post", string[], unknown]>([
    ["/Gadget({Guid})/Ping()", "get", ["204"], undefined],
    [
      "/Gadget({Guid})/Mode()",
      "get",
      ["200"],
      { type: "object", properties: { value: { anyOf: [ref("edge.GadgetModeResult"), { type: "null" }] } } },
    ],
    ["/Gadget/Find()", "get", ["200", "204"], ref("edge.Gadget")],
    ["/Gadget/Make", "post", ["200", "204"], ref("edge.Gadget")],
    [
      "/Gadget/Catalog()",
      "get",
      ["200"],
      { type: "object", required: ["value"], properties: { value: { type: "array", items: ref("edge.Gadget") } } },
    ],
    // a part is an owned item, in a set of its own
    ["/Container/Find()", "get", ["200", "204"], ref("edge.Part")],
  ])("%s answers %j", (path, method, statuses, body) => {
    const op = operation(edge, path, method);
    expect(Object.keys(op.responses).filter((s) => s.startsWith("2"))).toEqual(statuses);
    if (body !== undefined) expect(jsonSchema(op, "200")).toEqual({ allOf: [body, ref("Prompts")] });
  });

  it("shapes returned records with the query options", () => {
    const names = (op: Operation) => op.parameters!.flatMap((p) => ("$ref" in p ? [p.$ref.split("/").at(-1)] : []));
    expect(names(operation(edge, "/Gadget/Catalog()", "get"))).toEqual([
      "filter",
      "select",
      "expand",
      "orderby",
      "compute",
    ]);
    expect(names(operation(edge, "/Gadget/Find()", "get"))).toEqual(["select", "expand", "compute"]);
    expect(names(operation(edge, "/Gadget({Guid})/Mode()", "get"))).toEqual([]);
  });

  it("offers the methods behind a feature unless the features given leave them out", () => {
    const without = openApiDocument(edgeModel, { serverUrl: "/api", features: new Set() });
    const withIt = openApiDocument(edgeModel, { serverUrl: "/api", features: new Set([EDGE_FEATURE]) });
    for (const path of ["/Gadget({Guid})/Tune", "/Gadget/Catalog()"]) {
      expect(edge.paths[path]).toBeDefined();
      expect(withIt.paths[path]).toBeDefined();
      expect(without.paths[path]).toBeUndefined();
    }
  });
});

describe("openApiDocument() security", () => {
  it("asks for a bearer token everywhere but at sign-in and refresh", () => {
    expect(edge.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: "http", scheme: "bearer", bearerFormat: "JWT" }),
    });
    expect(operation(edge, "/Gadget", "get").security).toEqual([{ bearer: [] }]);
    expect(operation(edge, "/auth/signin", "post").security).toEqual([]);
    expect(operation(edge, "/auth/refresh", "post").security).toEqual([]);
  });

  it("adds an OAuth2 scheme per issuer: the code flow where its endpoints are known, else its discovery document", () => {
    const doc = openApiDocument(edgeModel, {
      serverUrl: "/api",
      oauth: {
        issuers: [
          { issuer: "https://login.example.com/tenant/" },
          {
            issuer: "https://b.example",
            authorizationEndpoint: "https://b.example/authorize",
            tokenEndpoint: "https://b.example/token",
          },
        ],
        scopes: { read: "api.read", write: "api.write" },
      },
    });
    expect(doc.components.securitySchemes["oauth2-1"]).toMatchObject({
      type: "openIdConnect",
      openIdConnectUrl: "https://login.example.com/tenant/.well-known/openid-configuration",
    });
    expect(doc.components.securitySchemes["oauth2-2"]).toMatchObject({
      type: "oauth2",
      flows: {
        authorizationCode: {
          authorizationUrl: "https://b.example/authorize",
          tokenUrl: "https://b.example/token",
          scopes: { "api.read": expect.any(String), "api.write": expect.any(String) },
        },
      },
    });
    // reads need the read scope, anything else the write scope
    expect(operation(doc, "/Gadget", "get").security).toEqual([
      { bearer: [] },
      { "oauth2-1": ["api.read"] },
      { "oauth2-2": ["api.read"] },
    ]);
    expect(operation(doc, "/Gadget({Guid})", "delete").security).toEqual([
      { bearer: [] },
      { "oauth2-1": ["api.write"] },
      { "oauth2-2": ["api.write"] },
    ]);
    expect(operation(doc, "/auth/signin", "post").security).toEqual([]);

    const one = openApiDocument(edgeModel, {
      serverUrl: "/api",
      oauth: { issuers: [{ issuer: "https://login.example.com" }], scopes: { read: "r", write: "w" } },
    });
    expect(Object.keys(one.components.securitySchemes)).toEqual(["bearer", "oauth2"]);
  });
});
