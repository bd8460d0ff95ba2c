/**
 * Parameter aliases (ABNF `parameterAlias`, `aliasAndValue`): `@name` is an operand of any
 * expression and an item of an `in` list or the whole list; `@name=value` in the query is a
 * literal or JSON, its errors named by the alias.
 */
import { describe, expect, it } from "vitest";
import { parseAliasValue, parseFilter, parseQueryOptions, printExpr, QuerySyntaxError } from "./index.js";

const syntaxError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(QuerySyntaxError);
    const { option, position, problem } = error as QuerySyntaxError;
    return { option, position, problem };
  }
  throw new Error("expected a syntax error");
};

describe("@name in an expression", () => {
  it.each([
    ["Name eq @p", "Name eq @p"],
    ["@p eq Name", "@p eq Name"],
    ["contains(Name,@needle)", "contains(Name,@needle)"],
    ["Cost add @delta gt 10", "Cost add @delta gt 10"],
    ["Name in (@a,'b',@c)", "Name in (@a,'b',@c)"],
    ["Name in @list", "Name in @list"],
    ["Name in @list and Cost gt 1", "Name in @list and Cost gt 1"],
    ["not (@flag)", "not @flag"],
    ["Details/any(d:d/Quantity gt @min)", "Details/any(d:d/Quantity gt @min)"],
  ])("%s", (text, printed) => {
    expect(printExpr(parseFilter(text))).toBe(printed);
  });

  it("keeps the name without @ and the position of the @", () => {
    expect(parseFilter("Name eq @p_1")).toMatchObject({ right: { kind: "parameterAlias", name: "p_1", pos: 8 } });
    expect(parseFilter("A in @l")).toMatchObject({ kind: "in", list: { kind: "parameterAlias", name: "l", pos: 5 } });
  });

  it.each([
    ["Name eq @", 8, "unexpected character '@'"],
    ["Name eq @1", 8, "unexpected character '@'"],
    ["@p/Name eq 1", 2, "expected an operator or end of input but found '/'"],
    ["@p(1) eq 1", 2, "expected an operator or end of input but found '('"],
  ])("%s is a syntax error at %i", (text, position, problem) => {
    expect(syntaxError(() => parseFilter(text))).toEqual({ option: "$filter", position, problem });
  });
});

describe("@name=value in the query", () => {
  it.each([
    ["'x'", { kind: "string", value: "x" }],
    [" 'O''Brien' ", { kind: "string", value: "O'Brien" }],
    ["5", { kind: "integer", text: "5" }],
    ["-2.5", { kind: "decimal", text: "-2.5" }],
    ["2024-02-29", { kind: "date", value: "2024-02-29" }],
    ["2024-02-29T10:00:00Z", { kind: "dateTimeOffset", value: "2024-02-29T10:00:00Z" }],
    ["6f1d2b3c-0000-4000-8000-000000000001", { kind: "guid", value: "6f1d2b3c-0000-4000-8000-000000000001" }],
    ["true", { kind: "boolean", value: true }],
    ["null", { kind: "null" }],
  ])("%s is a literal", (text, literal) => {
    expect(parseAliasValue("@p", text)).toEqual({ kind: "literal", literal: expect.objectContaining(literal) });
  });

  it.each([
    ['["a","b"]', ["a", "b"]],
    [" [1, 2.5, null]", [1, 2.5, null]],
    ['{"City":"Berlin"}', { City: "Berlin" }],
  ])("%s is JSON", (text, value) => {
    expect(parseAliasValue("@p", text)).toMatchObject({ kind: "json", value });
  });

  it.each([
    ["Name", 0, "expected a literal but found 'Name'"],
    ["'x' eq 'y'", 4, "expected end of input but found 'eq'"],
    ["", 0, "expected a literal but found end of input"],
    ["2024-13-01", 0, "invalid month in date '2024-13-01'"],
    ["[1,", 0, "not valid JSON"],
  ])("%j is an error for the alias at %i", (text, position, problem) => {
    expect(syntaxError(() => parseAliasValue("@p", text))).toEqual({ option: "@p", position, problem });
  });

  it("collects the aliases of a query by name without @", () => {
    const options = parseQueryOptions(new URLSearchParams("$filter=Name eq @p&@p='x'&@list=[1,2]"));
    expect(options.aliases).toEqual(
      new Map<string, unknown>([
        ["p", { kind: "literal", literal: { kind: "string", value: "x", pos: 0 } }],
        ["list", { kind: "json", value: [1, 2], pos: 0 }],
      ]),
    );
    expect(parseQueryOptions(new URLSearchParams("$top=1")).aliases).toBeUndefined();
  });

  it.each([
    ["@p='x'&@p='y'", "@p", "parameter alias '@p' is repeated"],
    ["@='x'", "@", "'@' is not a parameter alias name"],
    ["@a-b='x'", "@a-b", "'@a-b' is not a parameter alias name"],
    ["@p=Name", "@p", "expected a literal but found 'Name'"],
  ])("%s → error naming %s", (query, option, problem) => {
    expect(syntaxError(() => parseQueryOptions(new URLSearchParams(query)))).toMatchObject({ option, problem });
  });
});
