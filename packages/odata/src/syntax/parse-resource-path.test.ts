import { describe, expect, it } from "vitest";
import type { PathSegment, ResourcePath } from "./ast.js";
import { parseResourcePath, QuerySyntaxError } from "./index.js";

const guid = "6f1c2d3e-0a1b-4c2d-8e3f-123456789abc";

/** the segments in a compact form: `Name`, `ns.Name`, `Name(k=v,…)` with values as `kind:value` */
const shape = (path: ResourcePath): string[] =>
  path.segments.map((s: PathSegment) => {
    const name = s.qualifier === null ? s.name : `${s.qualifier}|${s.name}`;
    if (s.args === null) return name;
    const args = s.args.map((a) => {
      const value = "value" in a.value ? a.value.value : "text" in a.value ? a.value.text : "null";
      return `${a.name === null ? "" : `${a.name}=`}${a.value.kind}:${value}`;
    });
    return `${name}(${args.join(",")})`;
  });

describe("parseResourcePath", () => {
  it.each([
    ["Product", ["Product"]],
    ["Product/$count", ["Product", "$count"]],
    ["Product/$COUNT", ["Product", "$count"]],
    [`Product(${guid})`, [`Product(guid:${guid})`]],
    [`Product(${guid.toUpperCase()})`, [`Product(guid:${guid.toUpperCase()})`]],
    [`Product(guid'${guid}')`, [`Product(guid:${guid})`]],
    [`Product(Guid=${guid})`, [`Product(Guid=guid:${guid})`]],
    [`Product(Guid=guid'${guid}')`, [`Product(Guid=guid:${guid})`]],
    ["Customer('C1')", ["Customer(string:C1)"]],
    ["Customer('O''Brien')", ["Customer(string:O'Brien)"]],
    ["Customer(Id='C1')", ["Customer(Id=string:C1)"]],
    [`Product(${guid})/GetDefaultMarkup()`, [`Product(guid:${guid})`, "GetDefaultMarkup()"]],
    [`SalesOrder(${guid})/ReorderFrom`, [`SalesOrder(guid:${guid})`, "ReorderFrom"]],
    ["SalesOrder/GetOpenOrders()", ["SalesOrder", "GetOpenOrders()"]],
    [`Journal(${guid})/bizdata.Post`, [`Journal(guid:${guid})`, "bizdata|Post"]],
    [
      "SalesOrder/acme.sales.GetOpenOrders(customerId='C1')",
      ["SalesOrder", "acme.sales|GetOpenOrders(customerId=string:C1)"],
    ],
    [`SalesOrder(${guid})/Details/$count`, [`SalesOrder(guid:${guid})`, "Details", "$count"]],
    [`Contact(${guid})/MailingAddress/Country`, [`Contact(guid:${guid})`, "MailingAddress", "Country"]],
    // a keyword is a name in a path
    ["Order/in", ["Order", "in"]],
  ])("%s", (path, expected) => {
    expect(shape(parseResourcePath(path))).toEqual(expected);
  });

  it.each([
    // split at the raw `/` first, then decoded: `%2F` is part of a value
    ["SalesOrder/GetOpenOrders(customerId='C%2F1')", ["SalesOrder", "GetOpenOrders(customerId=string:C/1)"]],
    ["Customer('a%2Fb')", ["Customer(string:a/b)"]],
    ["Customer('a%2fb%20c')", ["Customer(string:a/b c)"]],
    ["Customer(%27x%27)", ["Customer(string:x)"]],
    ["Customer('100%25')", ["Customer(string:100%)"]],
  ])("percent-decodes each segment: %s", (path, expected) => {
    expect(shape(parseResourcePath(path))).toEqual(expected);
  });

  it("keeps inline parameters as literal nodes, positions counted in the decoded path", () => {
    const [, segment] = parseResourcePath("SalesOrder/GetOpenOrders(customerId='C1')").segments;
    expect(segment).toEqual({
      name: "GetOpenOrders",
      qualifier: null,
      args: [{ name: "customerId", value: { kind: "string", value: "C1", pos: 36 }, pos: 25 }],
      pos: 11,
    });
    const [, method] = parseResourcePath(
      `SalesOrder(${guid})/CalculateLineTotal(taxRate=0.19,quantity=-3,discount=null,since=2024-01-31,source=${guid},ok=true,lead=duration'P1D')`,
    ).segments;
    expect(method?.args?.map((a) => [a.name, a.value])).toEqual([
      ["taxRate", expect.objectContaining({ kind: "decimal", text: "0.19" })],
      ["quantity", expect.objectContaining({ kind: "integer", text: "-3" })],
      ["discount", expect.objectContaining({ kind: "null" })],
      ["since", expect.objectContaining({ kind: "date", value: "2024-01-31" })],
      ["source", expect.objectContaining({ kind: "guid", value: guid })],
      ["ok", expect.objectContaining({ kind: "boolean", value: true })],
      ["lead", expect.objectContaining({ kind: "duration", value: "P1D" })],
    ]);
  });

  it.each([
    ["", 0, "expected a name but found end of input"],
    ["/Product", 0, "expected a name but found end of input"],
    ["Product/", 8, "expected a name but found end of input"],
    ["Product//$count", 8, "expected a name but found end of input"],
    ["Product(", 8, "expected ')' but found end of input"],
    ["Product(abc)", 8, "expected a key or name=value but found 'abc'"],
    [`Product(${guid}`, 44, "expected ')' but found end of input"],
    ["Product(guid'123')", 12, "'123' is not a GUID"],
    ["Product(uuid'123')", 8, "expected a literal value but found 'uuid'"],
    ["Product/M(a=1,a=2)", 14, "'a' is repeated"],
    ["Product/M(1,2)", 12, "a value without a name must be the only one in parentheses"],
    ["Product/M(a=1,2)", 14, "a value without a name must be the only one in parentheses"],
    ["Product/M(a)", 10, "expected a key or name=value but found 'a'"],
    ["Product/M(a=2024-02-30)", 12, "invalid day in date '2024-02-30'"],
    ["Product/M(a=@p)", 12, "expected a literal value but found '@p'"],
    ["Product('x", 8, "unterminated string literal"],
    ["Product/$count/Name", 15, "'$count' must be the last segment of a path"],
    ["Product#1", 7, "unexpected character '#'"],
    ["Product(1)x", 10, "expected end of input but found 'x'"],
    ["Product.", 8, "expected a name but found end of input"],
    ["bizdata .Post", 8, "a qualified name has no blanks around its '.'"],
    ["bizdata.%20Post", 7, "a qualified name has no blanks around its '.'"],
    ["bizdata..Post", 8, "expected a name but found '.'"],
    // a raw `/` inside a quoted value ends the segment, and says how to write it
    ["Customer('a/b')", 9, "unterminated string literal; a '/' inside a quoted value is written %2F"],
    [
      "SalesOrder/GetOpenOrders(customerId='C/1')/x",
      36,
      "unterminated string literal; a '/' inside a quoted value is written %2F",
    ],
    ["Customer('a%2/b')", 11, "malformed percent-encoding in 'Customer('a%2'; a '%' is written %25"],
    // `%2F` is no separator: `Product/$count` is one segment, and no name
    ["Product%2F$count", 7, "expected end of input but found '/'"],
  ])("rejects %j at %d: %s", (path, position, problem) => {
    expect(() => parseResourcePath(path)).toThrow(new QuerySyntaxError("path", position, problem));
  });
});
