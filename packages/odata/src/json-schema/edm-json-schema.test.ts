/**
 * EdmJsonSchemas over a small hand-built schema, in the two styles the service uses: the OpenAPI
 * document's (components, OpenAPI formats) and one like the MCP tools' (inline, closed, plain
 * ranges). Each Edm type's schema in both, then the shapes of entity and complex types, the
 * parameters of a method, and the properties the two styles must render differently.
 */
import { describe, expect, it } from "vitest";
import type { EdmComplexType, EdmEntityType, EdmOperation, EdmSchema, EdmTypeRef } from "../metadata/edm.js";
import { alternateKeys, computed, description, immutable, optionalParameter } from "../metadata/vocabularies.js";
import { OPENAPI_SCHEMA_STYLE } from "../openapi/openapi-schema-style.js";
import { type EdmJsonSchemaStyle, EdmJsonSchemas } from "./edm-json-schema.js";
import type { JsonSchema } from "./json-schema.js";
import { DURATION_SCHEMA, TIME_OF_DAY_SCHEMA } from "./temporal-schemas.js";

const one = (type: string, facets: Partial<EdmTypeRef> = {}): EdmTypeRef => ({
  type,
  collection: false,
  nullable: false,
  ...facets,
});
const guid = { name: "Guid", ...one("Edm.Guid"), annotations: [immutable] };

const Country: EdmEntityType = {
  kind: "entityType",
  name: "Country",
  key: ["Guid"],
  properties: [guid, { name: "Code", ...one("Edm.String", { maxLength: 2 }), annotations: [] }],
  navigation: [],
  annotations: [alternateKeys(["Code"])],
};
const Address: EdmComplexType = {
  kind: "complexType",
  name: "OrderAddress",
  properties: [
    { name: "Street", ...one("Edm.String"), annotations: [] },
    { name: "Zip", ...one("Edm.String", { nullable: true }), annotations: [] },
  ],
  navigation: [{ name: "Country", type: "ns.Country", collection: false, nullable: true, annotations: [] }],
  annotations: [],
};
const Order: EdmEntityType = {
  kind: "entityType",
  name: "Order",
  key: ["Guid"],
  properties: [
    guid,
    { name: "Number", ...one("Edm.String", { maxLength: 20 }), annotations: [description("The order number")] },
    { name: "Total", ...one("Edm.Decimal", { nullable: true, precision: 9, scale: 2 }), annotations: [computed] },
    { name: "Count", ...one("Edm.Int32", { nullable: true }), defaultValue: 3, annotations: [] },
    { name: "Size", ...one("ns.OrderSize", { nullable: true }), annotations: [] },
    { name: "Address", ...one("ns.OrderAddress", { nullable: true }), annotations: [] },
  ],
  navigation: [
    {
      name: "ShipTo",
      type: "ns.Country",
      collection: false,
      nullable: false,
      annotations: [description("Where it goes.")],
    },
    {
      name: "Lines",
      type: "ns.OrderLine",
      collection: true,
      nullable: false,
      partner: "Order",
      onDelete: "Cascade",
      annotations: [],
    },
  ],
  annotations: [description("A sales order"), alternateKeys(["Number"])],
};
const Line: EdmEntityType = {
  kind: "entityType",
  name: "OrderLine",
  key: ["Guid"],
  properties: [guid, { name: "Quantity", ...one("Edm.Int32"), annotations: [] }],
  navigation: [
    {
      name: "Order",
      type: "ns.Order",
      collection: false,
      nullable: false,
      partner: "Lines",
      annotations: [],
    },
  ],
  annotations: [],
};
const Tune: EdmOperation = {
  kind: "action",
  annotations: [],
  name: "Tune",
  bound: true,
  parameters: [
    { name: "_it", ...one("ns.Order"), annotations: [] },
    { name: "size", ...one("ns.OrderSize"), annotations: [description("How big")] },
    { name: "times", ...one("Edm.Int32"), annotations: [optionalParameter("2")] },
  ],
};
const schema: EdmSchema = {
  namespace: "ns",
  types: [Country, Address, Order, Line, { kind: "enumType", name: "OrderSize", members: ["S", "M"] }],
  operations: [Tune],
  container: { name: "Container", entitySets: [], imports: [] },
};

/** the MCP tools' choices, with notes of its own so a test sees which sentence came from where */
const INLINE: EdmJsonSchemaStyle = {
  types: "inline",
  numbers: "ranges",
  closed: true,
  propertyDefaults: false,
  parameterDefaults: "keyword",
  notes: {
    reference: (target, keys) => `${target} by ${["Guid", ...keys].join(" or ")}.`,
    collection: (target, shape) => `${target} items (${shape}).`,
  },
};
const components = new EdmJsonSchemas(schema, OPENAPI_SCHEMA_STYLE);
const inline = new EdmJsonSchemas(schema, INLINE);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const SIZE = { type: "string", enum: ["S", "M"] };
const INT32 = { type: "integer", minimum: -2147483648, maximum: 2147483647 };

describe("EdmJsonSchemas.typeSchema: each Edm type in both styles", () => {
  it.each<[string, EdmTypeRef, JsonSchema, JsonSchema]>([
    ["Edm.String", one("Edm.String"), { type: "string" }, { type: "string" }],
    [
      "Edm.String(40)",
      one("Edm.String", { maxLength: 40 }),
      { type: "string", maxLength: 40 },
      { type: "string", maxLength: 40 },
    ],
    ["Edm.Int32", one("Edm.Int32"), { type: "integer", format: "int32" }, INT32],
    [
      "Edm.Decimal(9,2)",
      one("Edm.Decimal", { precision: 9, scale: 2 }),
      { type: "number", format: "decimal", multipleOf: 0.01, exclusiveMinimum: -1e7, exclusiveMaximum: 1e7 },
      { type: "number" },
    ],
    ["Edm.Decimal", one("Edm.Decimal"), { type: "number", format: "decimal" }, { type: "number" }],
    ["Edm.Boolean", one("Edm.Boolean"), { type: "boolean" }, { type: "boolean" }],
    ["Edm.Date", one("Edm.Date"), { type: "string", format: "date" }, { type: "string", format: "date" }],
    [
      "Edm.DateTimeOffset",
      one("Edm.DateTimeOffset"),
      { type: "string", format: "date-time" },
      { type: "string", format: "date-time" },
    ],
    ["Edm.Guid", one("Edm.Guid"), { type: "string", format: "uuid" }, { type: "string", format: "uuid" }],
    ["Edm.TimeOfDay", one("Edm.TimeOfDay"), TIME_OF_DAY_SCHEMA, TIME_OF_DAY_SCHEMA],
    ["Edm.Duration", one("Edm.Duration"), DURATION_SCHEMA, DURATION_SCHEMA],
    ["an enum type", one("ns.OrderSize"), ref("ns.OrderSize"), SIZE],
    [
      "a nullable Edm.Guid",
      one("Edm.Guid", { nullable: true }),
      { type: ["string", "null"], format: "uuid" },
      { type: ["string", "null"], format: "uuid" },
    ],
    // null is one more enum value inline, where no $ref can take it through anyOf
    [
      "a nullable enum type",
      one("ns.OrderSize", { nullable: true }),
      { anyOf: [ref("ns.OrderSize"), { type: "null" }] },
      { type: ["string", "null"], enum: ["S", "M", null] },
    ],
    [
      "a collection of nullable Int32",
      one("Edm.Int32", { collection: true, nullable: true }),
      { type: "array", items: { type: ["integer", "null"], format: "int32" } },
      { type: "array", items: { ...INT32, type: ["integer", "null"] } },
    ],
    [
      "a complex type",
      one("ns.OrderAddress"),
      ref("ns.OrderAddress"),
      {
        type: "object",
        properties: {
          Street: { type: "string" },
          Zip: { type: ["string", "null"] },
          Country: { type: ["string", "null"], description: "Country by Guid or Code." },
        },
      },
    ],
  ])("%s", (_, t, asComponent, asInline) => {
    expect(components.typeSchema(t)).toEqual(asComponent);
    expect(inline.typeSchema(t)).toEqual(asInline);
  });

  it("refuses a type the schema does not have", () => {
    expect(() => components.typeSchema(one("ns.Nope"))).toThrow(/ns\.Nope/);
    expect(() => inline.typeSchema(one("Edm.Single"))).toThrow(/Edm\.Single/);
  });
});

describe("EdmJsonSchemas shapes of entity and complex types", () => {
  it("reads every property, computed ones as readOnly, and a reference as its key or the expanded record", () => {
    const read = components.read(Order);
    expect(Object.keys(read.properties!)).toEqual([
      "Guid",
      "Number",
      "Total",
      "Count",
      "Size",
      "Address",
      "ShipTo",
      "Lines",
    ]);
    expect(read.properties!.Total).toMatchObject({ readOnly: true });
    expect(read.properties!.ShipTo).toEqual({
      anyOf: [{ type: "string", description: "The Guid or the Code of a Country." }, ref("ns.Country")],
      description: "Where it goes.",
    });
    expect(read.required).toBeUndefined();
    expect(read.additionalProperties).toBeUndefined();
    // an owned item reads its owner
    expect(components.read(Line).properties!.Order).toBeDefined();
  });

  it("reads a reference written out as its key alone, where the expanded record could refer back without end", () => {
    expect(inline.read(Line).properties!.Order).toEqual({ type: "string", description: "Order by Guid or Number." });
    expect(inline.read(Order).properties!.Lines).toEqual({ type: "array", items: inline.read(Line) });
  });

  it("requires on create what is not nullable and has no default, and leaves out what the service computes", () => {
    for (const schemas of [components, inline]) {
      const create = schemas.write(Order, "create");
      expect(create.required).toEqual(["Number", "ShipTo"]);
      expect(Object.keys(create.properties!)).not.toContain("Total");
      expect(create.properties!.Guid).toEqual({ type: "string", format: "uuid" });
    }
  });

  it("leaves an owned item's reference to its owner out of its components, which its owner's body holds, and names the item by its Guid on update", () => {
    const all = components.components();
    expect(all["ns.OrderLine-create"]!.properties).toEqual({
      Guid: { type: "string", format: "uuid" },
      Quantity: expect.anything(),
    });
    expect(all["ns.OrderLine-create"]!.required).toEqual(["Quantity"]);
    expect(Object.keys(all["ns.OrderLine-update"]!.properties!)).toEqual(["Guid", "Quantity"]);
  });

  it("names the owner in the writes at an owned item's own set (required on create), the record by its address", () => {
    for (const schemas of [components, inline]) {
      expect(Object.keys(schemas.write(Line, "create").properties!)).toEqual(["Guid", "Quantity", "Order"]);
      expect(schemas.write(Line, "create").required).toEqual(["Quantity", "Order"]);
      // the record itself is named by the URL or the tool's key, never by a Guid in the body
      expect(Object.keys(schemas.write(Line, "update").properties!)).toEqual(["Quantity", "Order"]);
      expect(Object.keys(schemas.write(Order, "update").properties!)).not.toContain("Guid");
      expect(schemas.write(Order, "update").required).toBeUndefined();
    }
  });

  it("gives every model type its components: three shapes of an entity type, two of a complex type, one enum", () => {
    expect(Object.keys(components.components())).toEqual([
      "ns.Country",
      "ns.Country-create",
      "ns.Country-update",
      "ns.OrderAddress",
      "ns.OrderAddress-update",
      "ns.Order",
      "ns.Order-create",
      "ns.Order-update",
      "ns.OrderLine",
      "ns.OrderLine-create",
      "ns.OrderLine-update",
      "ns.OrderSize",
    ]);
    expect(components.components()["ns.OrderSize"]).toEqual(SIZE);
  });
});

describe("EdmJsonSchemas where the two styles differ", () => {
  const create = { components: components.write(Order, "create"), inline: inline.write(Order, "create") };

  it.each<[string, JsonSchema, JsonSchema]>([
    // OpenAPI documents the default; a tool's schema leaves the service to apply it
    [
      "Count",
      { type: ["integer", "null"], format: "int32", default: 3 },
      { type: ["integer", "null"], minimum: -2147483648, maximum: 2147483647 },
    ],
    ["Size", { anyOf: [ref("ns.OrderSize"), { type: "null" }] }, { type: ["string", "null"], enum: ["S", "M", null] }],
    // a create's complex value: its one write component, or written out with its own required members
    [
      "Address",
      { anyOf: [ref("ns.OrderAddress-update"), { type: "null" }] },
      {
        type: ["object", "null"],
        properties: {
          Street: { type: "string" },
          Zip: { type: ["string", "null"] },
          Country: { type: ["string", "null"], description: "Country by Guid or Code." },
        },
        required: ["Street"],
        additionalProperties: false,
      },
    ],
    // a described reference keeps the sentence on how to name its target
    [
      "ShipTo",
      { type: "string", description: "Where it goes. The Guid or the Code of a Country." },
      { type: "string", description: "Where it goes. Country by Guid or Code." },
    ],
    [
      "Lines",
      { type: "array", items: ref("ns.OrderLine-create") },
      {
        type: "array",
        items: {
          type: "object",
          properties: { Guid: { type: "string", format: "uuid" }, Quantity: INT32 },
          required: ["Quantity"],
          additionalProperties: false,
        },
        description: "OrderLine items (create).",
      },
    ],
  ])("Order-create.%s", (property, asComponent, asInline) => {
    expect(create.components.properties![property]).toEqual(asComponent);
    expect(create.inline.properties![property]).toEqual(asInline);
  });

  it("describes the type with its natural key in the document, and closes a tool's object", () => {
    expect(create.components.description).toBe(
      "A sales order\n\nNatural key: Number (unique, so a reference may give it instead of the Guid).",
    );
    expect(create.components.additionalProperties).toBeUndefined();
    expect(create.inline.description).toBe("A sales order");
    expect(create.inline.additionalProperties).toBe(false);
  });

  it("puts a parameter's default in its description for the document, and in `default` for a tool", () => {
    expect(components.parameters(Tune)).toEqual({
      type: "object",
      properties: {
        size: { allOf: [ref("ns.OrderSize")], description: "How big" },
        times: { type: "integer", format: "int32", description: "Default: 2." },
      },
      required: ["size"],
      additionalProperties: false,
    });
    expect(inline.parameters(Tune)).toEqual({
      type: "object",
      properties: { size: { ...SIZE, description: "How big" }, times: { ...INT32, default: 2 } },
      required: ["size"],
      additionalProperties: false,
    });
    expect(components.parameterDescription(Tune.parameters[2]!)).toBe("Default: 2.");
    expect(inline.parameterDescription(Tune.parameters[2]!)).toBeUndefined();
    expect(inline.parameters({ ...Tune, parameters: Tune.parameters.slice(0, 1) })).toBeUndefined();
  });
});
