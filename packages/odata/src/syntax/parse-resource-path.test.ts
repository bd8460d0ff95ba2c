import { describe, expect, it } from "vitest";
import { parseResourcePath, QuerySyntaxError } from "./index.js";

const guid = "6f1c2d3e-0a1b-4c2d-8e3f-123456789abc";

describe("parseResourcePath", () => {
  it.each([
    ["Product", { kind: "collection", entity: "Product" }],
    ["SalesOrder", { kind: "collection", entity: "SalesOrder" }],
    ["Product/$count", { kind: "count", entity: "Product" }],
    [`Product(${guid})`, { kind: "entity", entity: "Product", key: guid }],
    [`Product(${guid.toUpperCase()})`, { kind: "entity", entity: "Product", key: guid.toUpperCase() }],
    [`Product(guid'${guid}')`, { kind: "entity", entity: "Product", key: guid }],
    ["Customer('C1')", { kind: "entity", entity: "Customer", key: "C1" }],
    ["Customer('O''Brien')", { kind: "entity", entity: "Customer", key: "O'Brien" }],
    [
      `Product(${guid})/GetDefaultMarkup()`,
      { kind: "method", entity: "Product", key: guid, method: "GetDefaultMarkup", parens: true, inlineArgs: {} },
    ],
    [
      `SalesOrder(${guid})/ReorderFrom`,
      { kind: "method", entity: "SalesOrder", key: guid, method: "ReorderFrom", parens: false, inlineArgs: {} },
    ],
    [
      "SalesOrder/GetOpenOrders()",
      { kind: "method", entity: "SalesOrder", key: null, method: "GetOpenOrders", parens: true, inlineArgs: {} },
    ],
    ["Journal/Post", { kind: "method", entity: "Journal", key: null, method: "Post", parens: false, inlineArgs: {} }],
  ])("%s", (path, expected) => {
    expect(parseResourcePath(path)).toEqual(expected);
  });

  it("keeps inline parameters as literal nodes by name", () => {
    expect(parseResourcePath("SalesOrder/GetOpenOrders(customerId='C1')")).toEqual({
      kind: "method",
      entity: "SalesOrder",
      key: null,
      method: "GetOpenOrders",
      parens: true,
      inlineArgs: { customerId: { kind: "string", value: "C1", pos: 36 } },
    });
    const path = parseResourcePath(
      `SalesOrder(${guid})/CalculateLineTotal(taxRate=0.19,quantity=-3,discount=null,since=2024-01-31,source=${guid},ok=true)`,
    );
    expect(path.kind === "method" && path.inlineArgs).toEqual({
      taxRate: expect.objectContaining({ kind: "decimal", text: "0.19" }),
      quantity: expect.objectContaining({ kind: "integer", text: "-3" }),
      discount: expect.objectContaining({ kind: "null" }),
      since: expect.objectContaining({ kind: "date", value: "2024-01-31" }),
      source: expect.objectContaining({ kind: "guid", value: guid }),
      ok: expect.objectContaining({ kind: "boolean", value: true }),
    });
  });

  it("stores a parameter called __proto__ as a plain key", () => {
    const path = parseResourcePath("X/M(__proto__=1)");
    expect(path.kind === "method" && Object.keys(path.inlineArgs)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it.each([
    ["", 0, "expected a name but found end of input"],
    ["/Product", 0, "expected a name but found '/'"],
    ["Product/", 8, "expected '$count' or a name but found end of input"],
    ["Product(", 8, "expected a GUID or a quoted key but found end of input"],
    ["Product()", 8, "expected a GUID or a quoted key but found ')'"],
    ["Product(5)", 8, "expected a GUID or a quoted key but found '5'"],
    ["Product(abc)", 8, "expected a GUID or a quoted key but found 'abc'"],
    [`Product(${guid}`, 44, "expected ')' but found end of input"],
    ["Product(guid'123')", 12, "'123' is not a GUID"],
    [`Product(${guid})/$count`, 46, "'$count' applies to a collection, not to a single entity"],
    ["Product/A/B", 9, "expected end of input but found '/'"],
    ["Product/M()/x", 11, "expected end of input but found '/'"],
    ["Product/M(a=1,a=2)", 14, "parameter 'a' is repeated"],
    ["Product/M(a)", 11, "expected '=' but found ')'"],
    ["Product/M(a=2024-02-30)", 12, "invalid day in date '2024-02-30'"],
    ["Product('x", 8, "unterminated string literal"],
    ["Product#1", 7, "unexpected character '#'"],
  ])("rejects %j at %d: %s", (path, position, problem) => {
    expect(() => parseResourcePath(path)).toThrow(new QuerySyntaxError("path", position, problem));
  });
});
