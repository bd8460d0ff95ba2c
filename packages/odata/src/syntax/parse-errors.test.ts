import { describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import {
  parseApply,
  parseCompute,
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseSelect,
  QuerySyntaxError,
} from "./index.js";

/** The error `fn(text)` throws; fails the test when it throws nothing or something else. */
function syntaxError(fn: () => unknown): QuerySyntaxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error;
    throw error;
  }
  throw new Error("expected a QuerySyntaxError");
}

const parsers = {
  $filter: parseFilter,
  $orderby: parseOrderBy,
  $select: parseSelect,
  $expand: parseExpand,
  $apply: parseApply,
  $compute: parseCompute,
} as const;

describe("syntax errors name the option, the offset and the problem", () => {
  it.each<[keyof typeof parsers, string, number, string]>([
    // lexing
    ["$filter", "A eq 'abc", 5, "unterminated string literal"],
    ["$filter", "A # 1", 2, "unexpected character '#'"],
    ["$filter", 'A eq "x"', 5, `unexpected character '"'`],
    ["$filter", "A eq @ p", 5, "unexpected character '@'"],
    ["$filter", "A eq 1\nor B", 6, "unexpected character U+000A"],
    ["$filter", "A eq 1.5.5", 8, "expected an operator or end of input but found '.'"],
    // the parser's error comes first when it is further left than the lexer's
    ["$filter", "A eq 'O'Brien'", 8, "expected an operator or end of input but found 'Brien'"],
    ["$filter", "A eq 1 B 'x", 7, "expected an operator or end of input but found 'B'"],
    // parsing
    ["$filter", "", 0, "expected an expression but found end of input"],
    ["$filter", "(A eq 1", 7, "expected ')' but found end of input"],
    ["$filter", "(A eq 1 eq", 10, "expected an expression but found end of input"],
    ["$filter", "A eq 1)", 6, "expected an operator or end of input but found ')'"],
    ["$filter", "A eq", 4, "expected an expression but found end of input"],
    ["$filter", "eq 1", 0, "expected an expression but found 'eq'"],
    ["$filter", "A eq 1 and", 10, "expected an expression but found end of input"],
    ["$filter", "A eq 1 B", 7, "expected an operator or end of input but found 'B'"],
    ["$filter", "A EQUALS 1", 2, "expected an operator or end of input but found 'EQUALS'"],
    ["$filter", "A eq + 5", 5, "unexpected character '+'"],
    ["$filter", "A eq +Cost", 5, "unexpected character '+'"],
    ["$filter", "A eq 5+3", 6, "expected an operator or end of input but found '+3'"],
    ["$filter", "A eq 5-3", 6, "expected an operator or end of input but found '-3'"],
    ["$filter", "A eq -", 6, "expected an expression but found end of input"],
    ["$filter", "not", 3, "expected an expression but found end of input"],
    ["$filter", "contains(A,", 11, "expected an expression but found end of input"],
    ["$filter", "contains(A,)", 11, "expected an expression but found ')'"],
    ["$filter", "contains(A 'x')", 11, "expected ')' but found ''x''"],
    ["$filter", "A in (", 6, "expected ')' but found end of input"],
    ["$filter", "A in (1,)", 8, "expected an expression but found ')'"],
    ["$filter", "A in (,1)", 6, "expected ')' but found ','"],
    ["$filter", "A in 1", 5, "expected '(' or a parameter alias but found '1'"],
    ["$filter", "A in (1,2) add 3", 11, "'add' cannot follow an 'in' list; add parentheses"],
    ["$compute", "case() as X", 0, "case() needs at least one branch, condition:value"],
    ["$compute", "case(A gt 1:2,3) as X", 14, "each argument of case() is condition:value, and '3' has no ':'"],
    ["$compute", "case(A gt 1) as X", 5, "each argument of case() is condition:value, and 'A gt 1' has no ':'"],
    ["$compute", "case(A gt 1:) as X", 12, "expected an expression but found ')'"],
    ["$compute", "case(A gt 1:2:3) as X", 13, "expected ')' but found ':'"],
    ["$filter", "contains(A:'x','y')", 10, "only case() takes condition:value arguments, not contains()"],
    ["$filter", "A divby", 7, "expected an expression but found end of input"],
    ["$filter", "A/", 2, "expected a name but found end of input"],
    ["$filter", "A//B", 2, "expected a name but found '/'"],
    ["$filter", "A/$count/B", 8, "'$count' must be the last segment of a path"],
    ["$filter", "any(d:d/A)", 0, "any() follows the path of a collection, as in Details/any(d: d/Quantity gt 0)"],
    ["$filter", "ALL()", 0, "ALL() follows the path of a collection, as in Details/all(d: d/Quantity gt 0)"],
    ["$filter", "Items/all()", 10, "all() needs a condition, as in all(d: d/Quantity gt 0)"],
    ["$filter", "$count eq 1", 0, "expected an expression but found '$count'"],
    ["$filter", "A eq $filter", 5, "expected an expression but found '$filter'"],
    ["$filter", "$it()", 3, "'$it' cannot be called"],
    ["$filter", "f(x)/B", 4, "'/' cannot follow a function call"],
    ["$filter", "A/foo(1)", 5, "only the lambda operators any and all may follow a path with '(', not 'foo'"],
    ["$filter", "A/any(d d/X)", 8, "expected ':' but found 'd'"],
    ["$filter", "A/any(d:)", 8, "expected an expression but found ')'"],
    ["$filter", "A/any()/B", 7, "'/' cannot follow a lambda"],
    ["$filter", `A eq '${"x".repeat(40)}' B`, 48, "expected an operator or end of input but found 'B'"],
    [
      "$filter",
      `A eq 1 '${"x".repeat(40)}'`,
      7,
      `expected an operator or end of input but found ''${"x".repeat(20)}…'`,
    ],
    // literal values
    ["$filter", "A eq 2024-13-01", 5, "invalid month in date '2024-13-01'"],
    ["$filter", "A eq 2023-02-29", 5, "invalid day in date '2023-02-29'"],
    ["$filter", "A eq 2024-04-31", 5, "invalid day in date '2024-04-31'"],
    ["$filter", "A eq 2024-01-31T25:00:00Z", 5, "invalid time in date-time '2024-01-31T25:00:00Z'"],
    ["$filter", "A eq 2024-01-31T10:60Z", 5, "invalid time in date-time '2024-01-31T10:60Z'"],
    [
      "$filter",
      "A eq 2024-01-31T10:00:00+24:00",
      5,
      "invalid time zone offset in date-time '2024-01-31T10:00:00+24:00'",
    ],
    ["$filter", "A eq 2024-01-31T10:00:00", 5, "date-time '2024-01-31T10:00:00' needs a time zone: Z or ±hh:mm"],
    ["$filter", "A eq 24:00", 5, "invalid time of day '24:00'"],
    ["$filter", "A eq 13:60:00", 5, "invalid time of day '13:60:00'"],
    ["$filter", "A eq 13:20:61", 5, "invalid time of day '13:20:61'"],
    ["$filter", "A eq 1:20", 6, "expected an operator or end of input but found ':'"],
    ["$filter", "A eq 13:20:", 10, "expected an operator or end of input but found ':'"],
    [
      "$filter",
      "A lt duration'P1M'",
      5,
      "duration 'P1M' has years, months or weeks, which have no fixed length; give days, hours, minutes and seconds (P30D)",
    ],
    [
      "$filter",
      "A lt duration'P1Y2DT3H'",
      5,
      "duration 'P1Y2DT3H' has years, months or weeks, which have no fixed length; give days, hours, minutes and seconds (P30D)",
    ],
    [
      "$filter",
      "A lt duration'1 day'",
      5,
      "invalid duration '1 day': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
    ],
    [
      "$filter",
      "A lt duration'P'",
      5,
      "invalid duration 'P': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
    ],
    [
      "$filter",
      "A lt duration'P1DT'",
      5,
      "invalid duration 'P1DT': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
    ],
    [
      "$filter",
      "A lt duration'PT1H1D'",
      5,
      "invalid duration 'PT1H1D': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
    ],
    [
      "$filter",
      "A lt duration'PT1234567890S'",
      5,
      "invalid duration 'PT1234567890S': expected ISO 8601 days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
    ],
    ["$filter", "A lt duration'P1D", 13, "unterminated string literal"],
    // other options
    ["$orderby", "", 0, "expected an expression but found end of input"],
    ["$orderby", "A,", 2, "expected an expression but found end of input"],
    ["$orderby", "A desc asc", 7, "expected ',', 'asc', 'desc' or end of input but found 'asc'"],
    ["$orderby", "A up", 2, "expected ',', 'asc', 'desc' or end of input but found 'up'"],
    ["$select", "", 0, "expected '*' or a name but found end of input"],
    ["$select", "A,", 2, "expected '*' or a name but found end of input"],
    ["$select", "A/", 2, "expected a name but found end of input"],
    ["$select", "A B", 2, "expected ',' or end of input but found 'B'"],
    ["$select", "tolower(A)", 7, "expected ',' or end of input but found '('"],
    ["$expand", "", 0, "expected a name but found end of input"],
    ["$expand", "A;B", 1, "expected ',' or end of input but found ';'"],
    [
      "$expand",
      "A()",
      2,
      "expected $select, $filter, $orderby, $top, $skip, $count, $expand, $compute, $search or $apply but found ')'",
    ],
    ["$expand", "A($apply=B)", 9, "expected filter(…), aggregate(…) or groupby(…) but found 'B'"],
    ["$expand", "A($apply=aggregate(X with sum as T)", 35, "expected ')' but found end of input"],
    [
      "$expand",
      "A($select=X;;$top=1)",
      12,
      "expected $select, $filter, $orderby, $top, $skip, $count, $expand, $compute, $search or $apply but found ';'",
    ],
    ["$expand", "A($select=)", 10, "expected '*' or a name but found ')'"],
    ["$expand", "A($select=B,$top=1)", 12, "expected '*' or a name but found '$top'"],
    ["$expand", "A($select=B", 11, "expected ')' but found end of input"],
    ["$expand", "A($select=X;$select=Y)", 12, "option '$select' is repeated"],
    ["$expand", "A($filter=B eq)", 14, "expected an expression but found ')'"],
    ["$expand", "A($top=-1)", 7, "must not be negative"],
    ["$expand", "A($top=1.5)", 8, "must be an integer"],
    ["$expand", "A($top=x)", 7, "expected a number but found 'x'"],
    ["$expand", "A($top=5000)", 7, "must not be larger than 1000"],
    ["$expand", "A($skip=-2)", 8, "must not be negative"],
    ["$expand", "A($count=yes)", 9, "expected true or false but found 'yes'"],
    ["$expand", "A($expand=B($filter=C eq 'x))", 25, "unterminated string literal"],
    ["$expand", "A($expand=B($orderby=C sideways))", 23, "expected ')' but found 'sideways'"],
    ["$apply", "", 0, "expected filter(…), aggregate(…) or groupby(…) but found end of input"],
    ["$apply", "foo(A)", 0, "expected filter(…), aggregate(…) or groupby(…) but found 'foo'"],
    ["$apply", "filter(A eq 1)/", 15, "expected filter(…), aggregate(…) or groupby(…) but found end of input"],
    ["$apply", "filter(A eq 1)aggregate($count as N)", 14, "expected '/' or end of input but found 'aggregate'"],
    ["$apply", "aggregate()", 10, "expected $count or an expression but found ')'"],
    [
      "$apply",
      "aggregate(A with total as T)",
      17,
      "unknown aggregation method 'total'; expected sum, min, max, average or countdistinct",
    ],
    ["$apply", "aggregate(A with sum)", 20, "expected 'as' but found ')'"],
    ["$apply", "aggregate(A as T)", 12, "expected 'with' but found 'as'"],
    ["$apply", "groupby(A)", 8, "expected '(' but found 'A'"],
    ["$apply", "groupby((A),filter(B))", 12, "expected 'aggregate' but found 'filter'"],
    ["$compute", "A mul 2", 7, "expected 'as' but found end of input"],
    ["$compute", "A mul 2 as", 10, "expected a name but found end of input"],
    ["$compute", "A as 5", 5, "expected a name but found '5'"],
  ])("%s=%s → position %d: %s", (option, text, position, problem) => {
    const error = syntaxError(() => parsers[option](text));
    expect({ option: error.option, position: error.position, problem: error.problem }).toEqual({
      option,
      position,
      problem,
    });
    expect(error.message).toBe(`Syntax error in ${option} at position ${position}: ${problem}`);
    expect(error.position).toBeLessThanOrEqual(text.length);
  });
});

describe("limits", () => {
  const roomy = { ...defaultQueryLimits, maxQueryLength: 1_000_000 };

  it("rejects 10,000 nested parentheses with a syntax error, not a stack overflow", () => {
    const text = `${"(".repeat(10_000)}A eq 1${")".repeat(10_000)}`;
    expect(syntaxError(() => parseFilter(text, roomy))).toMatchObject({
      option: "$filter",
      position: 32,
      problem: "expression is nested more than 32 levels deep",
    });
  });

  it("rejects 10,000 stacked unary operators the same way", () => {
    expect(syntaxError(() => parseFilter(`${"not ".repeat(10_000)}A`, roomy))).toMatchObject({
      position: 4 * 31,
      problem: "expression is nested more than 32 levels deep",
    });
    expect(syntaxError(() => parseFilter(`${"-".repeat(10_000)}A`, roomy))).toMatchObject({
      position: 31,
      problem: "expression is nested more than 32 levels deep",
    });
  });

  it("counts nesting through calls, lambdas and lists", () => {
    const limits = { ...defaultQueryLimits, maxExpressionDepth: 3 };
    expect(() => parseFilter("f(g(A))", limits)).not.toThrow();
    expect(() => parseFilter("f(g(h(A)))", limits)).toThrow(
      "at position 6: expression is nested more than 3 levels deep",
    );
    expect(() => parseFilter("A/any(a:a/B/any(b:b))", limits)).not.toThrow();
    expect(() => parseFilter("A/any(a:a/B/any(b:b/C/any(c:c)))", limits)).toThrow("nested more than 3 levels");
    expect(() => parseFilter("X in ((1))", limits)).not.toThrow();
    expect(() => parseFilter("X in (((1)))", limits)).toThrow("nested more than 3 levels");
  });

  it("does not count a long flat chain of operators as nesting", () => {
    const text = Array.from({ length: 500 }, (_, i) => `Id eq ${i}`).join(" or ");
    expect(() => parseFilter(text, roomy)).not.toThrow();
  });

  it("rejects deep nesting in $orderby, $compute, $apply and nested $expand options too", () => {
    const deep = `${"(".repeat(5_000)}A${")".repeat(5_000)}`;
    expect(syntaxError(() => parseOrderBy(deep, roomy)).position).toBe(32);
    expect(syntaxError(() => parseCompute(`${deep} as X`, roomy)).position).toBe(32);
    expect(syntaxError(() => parseApply(`filter(${deep})`, roomy)).position).toBe(39);
    expect(syntaxError(() => parseExpand(`A($filter=${deep})`, roomy)).position).toBe(42);
  });

  it("rejects deeply nested $expand before recursing into it", () => {
    const text = `${"A($expand=".repeat(5_000)}B${")".repeat(5_000)}`;
    expect(syntaxError(() => parseExpand(text, roomy))).toMatchObject({
      option: "$expand",
      position: 4 * "A($expand=".length,
      problem: "$expand is nested more than 4 levels deep",
    });
  });

  it("caps in-lists at maxInListLength", () => {
    const list = (n: number) => `X in (${Array.from({ length: n }, (_, i) => i).join(",")})`;
    expect(() => parseFilter(list(500))).not.toThrow();
    const text = list(501);
    expect(syntaxError(() => parseFilter(text))).toMatchObject({
      position: text.lastIndexOf(",") + 1,
      problem: "'in' list has more than 500 items",
    });
  });

  it("caps the length of each option at maxQueryLength", () => {
    const limits = { ...defaultQueryLimits, maxQueryLength: 10 };
    expect(() => parseFilter("A eq 12345", limits)).not.toThrow();
    expect(syntaxError(() => parseFilter("A eq 123456", limits))).toMatchObject({
      position: 10,
      problem: "longer than 10 characters",
    });
  });
});
