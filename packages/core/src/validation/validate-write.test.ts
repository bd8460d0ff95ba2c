/**
 * validateWrite on one flat entity: body shape, unknown and read-only properties, every scalar
 * type with its bounds, null, required fields and defaults. Nested values: validate-write-nested.test.ts.
 */
import { describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { boolean, date, datetime, decimal, enumeration, guid, integer, text, virtual } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { type ValidateOptions, validateWrite, type WriteMode } from "./index.js";

const Product = entity("Product", {
  naturalKey: "SKU",
  fields: {
    SKU: text({ required: true, minLength: 2, maxLength: 8 }),
    Cost: decimal({ precision: 6, scale: 2, min: 0, max: 5000 }),
    Markup: decimal({ default: 1.25 }),
    Stock: integer({ min: 0, max: 1000 }),
    Count: integer(),
    Active: boolean({ default: true }),
    Kind: enumeration(["Goods", "Service"], { required: true, default: "Goods" }),
    Launch: date(),
    Changed: datetime(),
    ExternalId: guid(),
    Audited: datetime({ readOnly: true }),
  },
  virtuals: { Margin: virtual(decimal(), { dependsOn: ["Cost"], compute: () => 0 }) },
});
const model = defineModel([Product]);

const defaults = { Active: true, Kind: "Goods", Markup: "1.25" };
const GUID = "0F8FAD5B-D9CB-469F-A165-70867728950E";
const guidLower = GUID.toLowerCase();

type Issues = readonly (readonly [code: string, target: string | undefined])[];
type Body = unknown;

const run = (body: Body, mode: WriteMode, options?: ValidateOptions) =>
  validateWrite(model, Product, body, mode, options);
const ieee754 = { ieee754Compatible: true } as const;

// [name, mode, body, normalized value, options]
const valid: [string, WriteMode, Body, Record<string, unknown>, ValidateOptions?][] = [
  ["minimal create gets defaults", "create", { SKU: "AB" }, { SKU: "AB", ...defaults }],
  ["given values win over defaults", "create", { SKU: "AB", Active: false }, { SKU: "AB", ...defaults, Active: false }],
  ["update is partial, no defaults", "update", { Cost: 1 }, { Cost: "1" }],
  ["empty update", "update", {}, {}],
  [
    "Guid chosen on create, lowercased",
    "create",
    { SKU: "AB", Guid: GUID },
    { SKU: "AB", Guid: guidLower, ...defaults },
  ],
  ["null for optional fields", "update", { Cost: null, Launch: null }, { Cost: null, Launch: null }],
  [
    "text at both bounds",
    "update",
    { SKU: "ABCDEFGH", Title: "x".repeat(400) },
    { SKU: "ABCDEFGH", Title: "x".repeat(400) },
  ],
  ["int4 bound", "update", { Count: -2147483648 }, { Count: -2147483648 }],
  ["integer at field bound", "update", { Stock: 1000 }, { Stock: 1000 }],
  ["decimal number to exact string", "update", { Cost: 12.5 }, { Cost: "12.5" }],
  ["decimal at max", "update", { Cost: 5000 }, { Cost: "5000" }],
  ["negative zero is zero", "update", { Cost: -0 }, { Cost: "0" }],
  ["decimal string normalized", "update", { Markup: "-0012.50" }, { Markup: "-12.5" }, ieee754],
  [
    "decimal string kept exact",
    "update",
    { Markup: "12345678901234.5678" },
    { Markup: "12345678901234.5678" },
    ieee754,
  ],
  ["numbers still accepted when IEEE754Compatible", "update", { Cost: 7 }, { Cost: "7" }, ieee754],
  ["calendar date, leap day", "update", { Launch: "2024-02-29" }, { Launch: "2024-02-29" }],
  ["instant with Z", "update", { Changed: "2024-05-01T09:30:00Z" }, { Changed: "2024-05-01T09:30:00Z" }],
  [
    "instant with offset",
    "update",
    { Changed: "2024-05-01T09:30:00.1+02:00" },
    { Changed: "2024-05-01T09:30:00.1+02:00" },
  ],
  ["instant without seconds", "update", { Changed: "2024-05-01T09:30Z" }, { Changed: "2024-05-01T09:30Z" }],
  ["guid lowercased", "update", { ExternalId: GUID }, { ExternalId: guidLower }],
  ["enum value", "update", { Kind: "Service" }, { Kind: "Service" }],
];

// [name, mode, body, [code, target] of every issue in order, options]
const invalid: [string, WriteMode, Body, Issues, ValidateOptions?][] = [
  // body
  ["null body", "create", null, [["InvalidBody", undefined]]],
  ["array body", "create", [{ SKU: "AB" }], [["InvalidBody", undefined]]],
  ["string body", "update", "SKU", [["InvalidBody", undefined]]],
  ["class instance body", "create", new Date(), [["InvalidBody", undefined]]],
  // unknown and unsafe keys
  ["wrongly cased name", "create", { SKU: "AB", sku: "x" }, [["UnknownProperty", "sku"]]],
  ["__proto__", "create", JSON.parse('{"SKU":"AB","__proto__":{"Active":false}}'), [["UnknownProperty", "__proto__"]]],
  ["constructor", "update", { constructor: 1 }, [["UnknownProperty", "constructor"]]],
  ["prototype", "update", { prototype: 2 }, [["UnknownProperty", "prototype"]]],
  ["wrongly cased virtual", "update", { margin: 1 }, [["UnknownProperty", "margin"]]],
  // read-only
  ["read-only field", "create", { SKU: "AB", Audited: "2024-05-01T09:30:00Z" }, [["ReadOnlyProperty", "Audited"]]],
  ["virtual", "update", { Margin: 1 }, [["ReadOnlyProperty", "Margin"]]],
  ["RecordReadOnly", "update", { RecordReadOnly: [] }, [["ReadOnlyProperty", "RecordReadOnly"]]],
  ["Guid on update", "update", { Guid: GUID }, [["ReadOnlyProperty", "Guid"]]],
  ["Guid not GUID-shaped", "create", { SKU: "AB", Guid: "42" }, [["InvalidType", "Guid"]]],
  ["Guid null", "create", { SKU: "AB", Guid: null }, [["Required", "Guid"]]],
  // required
  ["required missing on create", "create", {}, [["Required", "SKU"]]],
  ["required null on create", "create", { SKU: null }, [["Required", "SKU"]]],
  [
    "required null on update",
    "update",
    { SKU: null, Kind: null },
    [
      ["Required", "SKU"],
      ["Required", "Kind"],
    ],
  ],
  // text
  ["text given a number", "update", { SKU: 42 }, [["InvalidType", "SKU"]]],
  [
    "text too long",
    "update",
    { SKU: "ABCDEFGHI", Title: "x".repeat(401) },
    [
      ["TooLong", "SKU"],
      ["TooLong", "Title"],
    ],
  ],
  ["text too short", "update", { SKU: "A" }, [["TooShort", "SKU"]]],
  // integer
  ["integer given a fraction", "update", { Stock: 1.5 }, [["InvalidType", "Stock"]]],
  ["integer given a string", "update", { Stock: "5" }, [["InvalidType", "Stock"]]],
  ["integer given NaN", "update", { Count: Number.NaN }, [["InvalidType", "Count"]]],
  ["integer below min", "update", { Stock: -1 }, [["OutOfRange", "Stock"]]],
  ["integer above max", "update", { Stock: 1001 }, [["OutOfRange", "Stock"]]],
  ["integer above int4", "update", { Count: 2147483648 }, [["OutOfRange", "Count"]]],
  ["unsafe integer", "update", { Count: 2 ** 60 }, [["OutOfRange", "Count"]]],
  // decimal
  ["decimal string without IEEE754Compatible", "update", { Cost: "12.50" }, [["InvalidType", "Cost"]]],
  ["decimal string with exponent", "update", { Cost: "1e3" }, [["InvalidType", "Cost"]], ieee754],
  ["decimal string without fraction digits", "update", { Cost: "12." }, [["InvalidType", "Cost"]], ieee754],
  ["decimal given a boolean", "update", { Cost: true }, [["InvalidType", "Cost"]], ieee754],
  ["decimal Infinity", "update", { Cost: Number.POSITIVE_INFINITY }, [["InvalidType", "Cost"]]],
  ["too many decimal places", "update", { Cost: 12.345 }, [["TooPrecise", "Cost"]]],
  ["float noise is too precise", "update", { Cost: 0.1 + 0.2 }, [["TooPrecise", "Cost"]]],
  ["tiny number is too precise", "update", { Markup: 1e-7 }, [["TooPrecise", "Markup"]]],
  ["too precise as string", "update", { Cost: "1.005" }, [["TooPrecise", "Cost"]], ieee754],
  [
    "too many integer digits",
    "update",
    { Cost: 10000, Markup: 123456789012345 },
    [
      ["OutOfRange", "Cost"],
      ["OutOfRange", "Markup"],
    ],
  ],
  ["decimal below min", "update", { Cost: -0.01 }, [["OutOfRange", "Cost"]]],
  ["decimal above max", "update", { Cost: "5000.01" }, [["OutOfRange", "Cost"]], ieee754],
  // boolean, date, datetime, guid, enum
  ["boolean given a string", "update", { Active: "true" }, [["InvalidType", "Active"]]],
  ["date that does not exist", "update", { Launch: "2023-02-29" }, [["InvalidType", "Launch"]]],
  ["date not zero-padded", "update", { Launch: "2024-1-01" }, [["InvalidType", "Launch"]]],
  ["year zero", "update", { Launch: "0000-01-01" }, [["InvalidType", "Launch"]]],
  ["date as number", "update", { Launch: 20240101 }, [["InvalidType", "Launch"]]],
  ["instant without offset", "update", { Changed: "2024-05-01T09:30:00" }, [["InvalidType", "Changed"]]],
  ["instant at hour 24", "update", { Changed: "2024-05-01T24:00:00Z" }, [["InvalidType", "Changed"]]],
  ["instant on a missing day", "update", { Changed: "2024-02-30T00:00:00Z" }, [["InvalidType", "Changed"]]],
  [
    "guid without hyphens",
    "update",
    { ExternalId: "0f8fad5bd9cb469fa16570867728950e" },
    [["InvalidType", "ExternalId"]],
  ],
  ["enum is case sensitive", "update", { Kind: "goods" }, [["InvalidValue", "Kind"]]],
  ["enum given a number", "update", { Kind: 1 }, [["InvalidValue", "Kind"]]],
  // all issues are collected
  [
    "every problem reported",
    "create",
    { SKU: 1, Cost: -1, Kind: "x", Margin: 0, sku: "a" },
    [
      ["InvalidType", "SKU"],
      ["OutOfRange", "Cost"],
      ["InvalidValue", "Kind"],
      ["ReadOnlyProperty", "Margin"],
      ["UnknownProperty", "sku"],
    ],
  ],
];

describe("validateWrite on scalar fields", () => {
  it.each(valid)("accepts: %s", (_, mode, body, value, options) => {
    expect(run(body, mode, options)).toEqual({ success: true, value });
  });

  it.each(invalid)("rejects: %s", (_, mode, body, issues, options) => {
    const result = run(body, mode, options);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues.map((i) => [i.code, i.target])).toEqual(issues);
    for (const issue of result.issues) expect(issue.message).toMatch(/\S/);
  });
});

describe("messages", () => {
  const messages = (body: Body, mode: WriteMode) => {
    const result = run(body, mode);
    return result.success ? [] : result.issues.map((i) => i.message);
  };

  it("suggests the correctly cased name", () => {
    expect(messages({ SKU: "AB", sku: "x" }, "create")).toEqual([
      'Product has no property "sku"; property names are case sensitive (did you mean "SKU"?)',
    ]);
    expect(messages({ Foo: 1 }, "update")).toEqual(['Product has no property "Foo".']);
  });

  it("names the expected type, the bound or the allowed values", () => {
    expect(messages({ Stock: "5", Cost: 12.345, Kind: "x", SKU: "ABCDEFGHI", Count: 2 ** 31 }, "update")).toEqual([
      "Stock must be an integer.",
      "Cost must have at most 2 decimal places.",
      'Kind must be one of "Goods", "Service" (case sensitive).',
      "SKU must be at most 8 characters long.",
      "Count must be at most 2147483647.",
    ]);
  });
});

describe("output", () => {
  it("is a fresh object that input keys cannot pollute", () => {
    const body = JSON.parse('{"SKU":"AB","Cost":1}');
    const result = run(body, "create");
    expect(result.success && result.value).not.toBe(body);
    expect(run(JSON.parse('{"__proto__":{"polluted":true}}'), "update").success).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("values set by server code (byServer)", () => {
  const Journal = entity("Journal", {
    naturalKey: "Guid",
    fields: {
      Amount: decimal({ scale: 2, min: 0 }),
      PostedBy: text({ required: true, readOnly: true, maxLength: 4 }),
    },
  });
  const journals = defineModel([Journal]);
  const check = (body: Body, mode: WriteMode, options: ValidateOptions) => {
    const result = validateWrite(journals, Journal, body, mode, options);
    return result.success ? [] : result.issues.map((i) => [i.code, i.target, i.message]);
  };

  it("may set read-only properties, and must set the required ones, whose constraints hold as for a client", () => {
    expect(check({ PostedBy: "ann" }, "update", { byServer: true })).toEqual([]);
    expect(check({ PostedBy: "ann" }, "update", {})).toEqual([
      ["ReadOnlyProperty", "PostedBy", "PostedBy is read-only."],
    ]);
    expect(check({ PostedBy: "annabel" }, "update", { byServer: true })).toEqual([
      ["TooLong", "PostedBy", "PostedBy must be at most 4 characters long."],
    ]);
    // a client cannot set it, so it may leave it out; server code is the one left to set it
    expect(check({}, "create", {})).toEqual([]);
    expect(check({}, "create", { byServer: true })).toEqual([["Required", "PostedBy", "PostedBy is required."]]);
    expect(check({ PostedBy: null }, "update", { byServer: true })).toEqual([
      ["Required", "PostedBy", "PostedBy cannot be null."],
    ]);
  });

  it("names where the body sits (at) in every target and message", () => {
    expect(check({ Amount: -1.5, PostedBy: "x" }, "update", { byServer: true, at: "Lines[3]" })).toEqual([
      ["OutOfRange", "Lines[3].Amount", "Lines[3].Amount must be at least 0."],
    ]);
  });
});
