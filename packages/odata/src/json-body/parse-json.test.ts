import { ServiceError } from "@bizdata/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "./parse-json.js";

const limits = { maxDepth: 4 };

function thrown(text: string, maxDepth = limits.maxDepth): ServiceError {
  try {
    parseJson(text, { maxDepth });
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error(`parseJson accepted ${text}`);
}

describe("parseJson", () => {
  it.each([
    ['{"Cost":1.10,"Qty":100,"Rate":-0.5,"Big":1e2}', { Cost: 1.1, Qty: 100, Rate: -0.5, Big: 100 }],
    ['[[[["deep enough"]]]]', [[[["deep enough"]]]]],
    ['"[[[[[ brackets in strings do not nest"', "[[[[[ brackets in strings do not nest"],
    ['["\\"[[[[[", "\\\\", "[[[[["]', ['"[[[[[', "\\", "[[[[["]],
    ['{"n":"12345678901234567890"}', { n: "12345678901234567890" }],
    [" 42 ", 42],
    ["null", null],
    // the same name in different objects, and as a value, is no repetition
    ['{"a":{"a":"a"},"b":[{"a":1},{"a":2}],"c":"a"}', { a: { a: "a" }, b: [{ a: 1 }, { a: 2 }], c: "a" }],
  ])("parses %s", (text, expected) => {
    expect(parseJson(text, limits)).toEqual(expected);
  });

  it.each([
    // text, code, target, message fragment
    ['{"a":}', "InvalidJson", undefined, 'at position 5, found "}" where a value was expected'],
    ["", "EmptyBody", undefined, "The request body is empty"],
    [" \n ", "EmptyBody", undefined, "The request body is empty"],
    ['{"Quantity":1,"Quantity":-90}', "DuplicateJsonKey", "Quantity", '"Quantity" more than once'],
    ['{"a":1,"\\u0061":2}', "DuplicateJsonKey", "a", '"a" more than once'], // one name, however escaped
    [
      '{"Details":[{"Product":"P1","Quantity":1},{"Product":"P2","Product":"P3"}]}',
      "DuplicateJsonKey",
      "Details[1].Product",
      "(position 58)",
    ],
    ['{"a":{"x":1},"b":{"x":1},"a":2}', "DuplicateJsonKey", "a", '"a" more than once'],
    ['{"a":1,"a":}', "InvalidJson", undefined, "at position 11"], // grammar errors come first
    ['{"Cost": 1,}', "InvalidJson", undefined, "at position 11"],
    ['[1e400, "x" "y"]', "InvalidJson", undefined, "at position 12"], // grammar errors come before number errors
    ["[[[[[1]]]]]", "JsonTooDeep", undefined, "limit of 4 levels (position 4)"],
    ['{"a":{"b":[{"c":[0]}]}}', "JsonTooDeep", undefined, "limit of 4 levels"],
    ["[[[[[[[[[[", "JsonTooDeep", undefined, "(position 4)"], // refused before it is found incomplete
    ['{"Cost":12345678901234567890}', "NumberNotExact", "Cost", "12345678901234567890"],
    [
      '{"Details":[{"Quantity":1},{"Quantity":2},{"Quantity":0.1000000000000000000001}]}',
      "NumberNotExact",
      "Details[2].Quantity",
      "0.1000000000000000000001",
    ],
    ['{"a":[1e400]}', "NumberNotExact", "a[0]", "1e400"],
    ["-9007199254740993", "NumberNotExact", undefined, "IEEE754Compatible=true"],
    [`{"x":1${"0".repeat(60)}1}`, "NumberNotExact", "x", `1${"0".repeat(39)}…`],
  ])("%s → 400 %s", (text, code, target, message) => {
    const error = thrown(text);
    expect([error.status, error.code, error.target]).toEqual([400, code, target]);
    expect(error.message).toContain(message);
  });

  it("reports the first inexact number", () => {
    expect(thrown('{"a":1,"b":[2,1e999,3],"c":1e999}').target).toBe("b[1]");
  });

  it("refuses a body nested far beyond the limit without exhausting the stack", () => {
    const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    expect(thrown(deep, 32).code).toBe("JsonTooDeep");
  });

  it("keeps __proto__ as an own property and leaves the prototype alone", () => {
    const value = parseJson('{"__proto__":{"x":1}}', limits) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ x: 1 });
    expect((value as { x?: unknown }).x).toBeUndefined();
    expect(({} as { x?: unknown }).x).toBeUndefined();
  });

  it("parses whatever JSON.stringify writes exactly as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value);
        expect(parseJson(text, { maxDepth: 9 })).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });
});
