import { describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import type { SearchExpr } from "./ast.js";
import { parseExpand, parseQueryOptions, parseSearch, QuerySyntaxError } from "./index.js";

/** compact notation: `(and a "b c")` */
function tree(expr: SearchExpr): string {
  switch (expr.kind) {
    case "word":
      return expr.value;
    case "phrase":
      return JSON.stringify(expr.value);
    case "not":
      return `(not ${tree(expr.operand)})`;
    case "and":
    case "or":
      return `(${expr.kind} ${tree(expr.left)} ${tree(expr.right)})`;
  }
}

describe("parseSearch", () => {
  it.each([
    ["blue", "blue"],
    ["blue widget", "(and blue widget)"],
    ["blue AND widget", "(and blue widget)"],
    ["blue   widget\tsteel", "(and (and blue widget) steel)"],
    ["blue OR red", "(or blue red)"],
    ["NOT red", "(not red)"],
    ["NOT NOT red", "(not (not red))"],
    // NOT binds tighter than AND, AND (also implied) tighter than OR
    ["blue OR red widget", "(or blue (and red widget))"],
    ["blue red OR widget", "(or (and blue red) widget)"],
    ["NOT blue OR red", "(or (not blue) red)"],
    ["NOT blue red", "(and (not blue) red)"],
    ["(blue OR red) widget", "(and (or blue red) widget)"],
    ["NOT (blue OR red)", "(not (or blue red))"],
    ['"blue widget"', '"blue widget"'],
    ['"blue widget" OR gadget', '(or "blue widget" gadget)'],
    ['"say \\"hi\\" \\\\ bye"', '"say \\"hi\\" \\\\ bye"'],
    ['"a (b) OR c; d"', '"a (b) OR c; d"'],
    // only upper-case operators are operators; others are words, as is an operator run into a word
    ["blue and red", "(and (and blue and) red)"],
    ["blue or red", "(and (and blue or) red)"],
    ["ANDROID NOTE ORBIT", "(and (and ANDROID NOTE) ORBIT)"],
    // words are anything but blanks, parentheses, quotes and ';'
    ["100% C# O'Brien a&b x=y *", "(and (and (and (and (and 100% C#) O'Brien) a&b) x=y) *)"],
    ["Über-Gerät 日本", "(and Über-Gerät 日本)"],
    // AND, OR and NOT are operators only with a term to operate on; elsewhere words (ABNF searchExpr)
    ["AND", "AND"],
    ["OR", "OR"],
    ["NOT", "NOT"],
    ["NOT blue", "(not blue)"],
    ["NOT NOT", "(not NOT)"],
    ["AND OR", "(and AND OR)"],
    ["OR AND", "(and OR AND)"],
    ["AND OR NOT", "(or AND NOT)"],
    ["blue AND", "(and blue AND)"],
    ["blue OR", "(and blue OR)"],
    ["OR red", "(and OR red)"],
    ["blue AND OR red", "(and (and blue OR) red)"],
    ["blue OR OR", "(or blue OR)"],
    ["(blue NOT)", "(and blue NOT)"],
    ["NOT (blue green)", "(not (and blue green))"],
    ["(foo OR that) AND (bar OR baz) AND NOT quux", "(and (and (or foo that) (or bar baz)) (not quux))"],
    // quoted, an operator is a phrase like any other
    ['"AND"', '"AND"'],
    ['"NOT" OR "OR"', '(or "NOT" "OR")'],
    // the whole value in single quotes (searchExpr-incomplete): its words, unbalanced quotes and all
    ["'\"blue'", "blue"],
    ['\'"blue" "green\'', "(and blue green)"],
    ["'gr(een'", "(and gr een)"],
    ["'O''Brien'", "O'Brien"],
    ["'\"'", '"'],
    // %3B and %25 are a ';' and a '%' of a term, as the query keeps them (queryParameters)
    ["a%3Bb", "a;b"],
    ["100%25", "100%"],
    ['"x%3By"', '"x;y"'],
  ])("%s", (text, expected) => {
    expect(tree(parseSearch(text))).toBe(expected);
  });

  it("keeps positions", () => {
    expect(parseSearch('ab OR "c d"')).toEqual({
      kind: "or",
      left: { kind: "word", value: "ab", pos: 0 },
      right: { kind: "phrase", value: "c d", pos: 6 },
      pos: 0,
    });
  });

  it.each([
    ["", 0, "expected a search term but found end of input"],
    ["   ", 3, "expected a search term but found end of input"],
    ["()", 1, "expected a search term but found ')'"],
    ["(blue", 5, "expected ')' but found end of input"],
    ["blue)", 4, "expected a search term, 'AND', 'OR' or end of input but found ')'"],
    ['"blue', 0, "unterminated phrase"],
    ['blue "red', 5, "unterminated phrase"],
    ["a;b", 1, "a ';' inside a search term is written %3B"],
    ["'blue", 0, "unterminated quoted search"],
    ["'a' b", 4, "a search in single quotes is the whole value, with nothing before or after it"],
    ["a 'b'", 2, "a search in single quotes is the whole value, with nothing before or after it"],
    ['"blue%22green', 0, "unterminated phrase"],
    // terms are apart (ABNF RWS), operators too
    ["(blue OR red)(widget)", 13, "search terms are separated by a blank"],
    ['"blue"green', 6, "search terms are separated by a blank"],
    ["NOT(blue)", 3, "search terms are separated by a blank"],
    ["(a)OR b", 3, "search terms are separated by a blank"],
  ])("rejects %j at %d: %s", (text, position, problem) => {
    expect(() => parseSearch(text)).toThrow(new QuerySyntaxError("$search", position, problem));
  });

  it("counts parentheses and NOT against maxExpressionDepth", () => {
    const limits = { ...defaultQueryLimits, maxExpressionDepth: 3 };
    expect(() => parseSearch("((NOT a))", limits)).not.toThrow();
    expect(() => parseSearch("((NOT NOT a))", limits)).toThrow("nested more than 3 levels");
    expect(() => parseSearch(`${"(".repeat(5_000)}a${")".repeat(5_000)}`)).toThrow(QuerySyntaxError);
  });

  it("counts words and phrases against maxSearchTerms", () => {
    const limits = { ...defaultQueryLimits, maxSearchTerms: 3 };
    expect(() => parseSearch('a OR "b c" NOT d', limits)).not.toThrow();
    expect(() => parseSearch('a OR "b c" NOT d e', limits)).toThrow(
      new QuerySyntaxError("$search", 17, "search has more than the limit of 3 terms"),
    );
    const many = Array.from({ length: 101 }, (_, i) => `w${i}`).join(" OR ");
    expect(() => parseSearch(many)).toThrow("more than the limit of 100 terms");
  });

  it("is a system query option, with or without $", () => {
    expect(parseQueryOptions(new URLSearchParams({ $search: "blue" })).search).toMatchObject({ value: "blue" });
    expect(parseQueryOptions(new URLSearchParams({ search: "blue" })).search).toMatchObject({ value: "blue" });
    expect(() => parseQueryOptions(new URLSearchParams({ $search: " blue" }))).toThrow("no blank is allowed after '='");
  });
});

describe("$search inside $expand", () => {
  const search = (text: string) => {
    const [item] = parseExpand(text);
    return item!.options.search === undefined ? undefined : tree(item!.options.search);
  };

  it.each([
    ["Details($search=blue)", "blue"],
    ["Details(search=blue)", "blue"],
    ["Details($SEARCH=blue red)", "(and blue red)"],
    ["Details($search=(blue OR red) NOT x;$top=2)", "(and (or blue red) (not x))"],
    ['Details($top=2;$search="a; b)" 100%)', '(and "a; b)" 100%)'],
    ["Details($search=a$b=c)", "a$b=c"],
    // the value keeps %3B and %25 (queryParameters): a %3B where no option follows is the word's ';'
    ["Manager($search=a%3Bb)", "a;b"],
    ["Manager($search=a%3bb)", "a;b"],
    ["Manager($search=a%3B)", "a;"],
    ["Manager($search=%3Ba OR b%3B%3Bc)", "(or ;a b;;c)"],
    ["Manager($search=a%3B=b)", "a;=b"],
    ["Manager($search=AND%3B)", "AND;"],
    ["Manager($search=100%25 %2525)", "(and 100% %25)"],
    ['Manager($search="a%3Bb")', '"a;b"'],
    // before another option it ends the search, as a ';' does
    ["Manager($search=blue%3B$top=2)", "blue"],
    ["Manager($search=blue%3Btop=2)", "blue"],
    ["Manager($search=NOT%3B$top=2)", "NOT"],
    ["Manager($search='a;b'%3B$select=A)", "a;b"],
    ["Manager($search=blue%3B%3B$top=2)", "blue;"],
  ])("%s", (text, expected) => {
    expect(search(text)).toBe(expected);
  });

  it("reads %3B as the ';' between options, and %3B and %25 in strings as ';' and '%'", () => {
    const [item] = parseExpand("Details($select=A%3B$filter=A eq 'x%3By%25'%3B$search=b%3B$top=1)");
    expect(item!.options).toMatchObject({
      select: [{ path: ["A"] }],
      filter: { kind: "binary", right: { kind: "string", value: "x;y%" } },
      search: { kind: "word", value: "b" },
      top: 1,
    });
  });

  it("ends at ';' and at the item's ')', so other options and items follow", () => {
    const items = parseExpand("Details($search=blue;$select=A),Other($search=x),Third");
    expect(items.map((i) => [i.path.join("/"), i.options.select?.length ?? 0, i.options.search?.pos])).toEqual([
      ["Details", 1, 16],
      ["Other", 0, 46],
      ["Third", 0, undefined],
    ]);
    expect(parseExpand("A($expand=B($search=x;$top=1);$search=y)")[0]!.options).toMatchObject({
      search: { kind: "word", value: "y" },
      expand: [{ options: { top: 1, search: { kind: "word", value: "x" } } }],
    });
  });

  it.each([
    ["Details($search=)", 16, "expected a search term but found ')'"],
    ["Details($search= blue)", 16, "no blank is allowed after '='"],
    ["Details($search=a;$search=b)", 18, "option '$search' is repeated"],
    ["Details($search=(a)", 19, "expected ')' but found end of input"],
    ['Details($search="a)', 16, "unterminated phrase"],
    // an encoded ';' before a misspelt option ends the search all the same: the option is refused
    [
      "Details($search=blue%3B$selct=A)",
      23,
      "expected $select, $filter, $orderby, $top, $skip, $count, $expand, $compute, $search or $apply but found '$selct'",
    ],
  ])("rejects %j at %d: %s", (text, position, problem) => {
    expect(() => parseExpand(text)).toThrow(new QuerySyntaxError("$expand", position, problem));
  });
});
