/**
 * Property tests: well-formed expressions generated from the grammar parse back to the tree they
 * were printed from, and no input whatsoever makes a parser throw anything but a
 * `QuerySyntaxError` with a position inside the text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import type { BinaryOperator, Expr, Literal, PathExpr } from "./ast.js";
import {
  parseApply,
  parseCompute,
  parseCount,
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseQueryOptions,
  parseResourcePath,
  parseSearch,
  parseSelect,
  parseSkip,
  parseTop,
  printExpr,
  QuerySyntaxError,
} from "./index.js";

// ---------------------------------------------------------------- helpers

/** Deep copy without `pos`, so a parsed tree compares with a generated one. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "pos")
        .map(([key, inner]) => [key, withoutPositions(inner)]),
    );
  }
  return value;
}

/** Every `pos` in a parsed tree. */
function positions(value: unknown, into: number[] = []): number[] {
  if (Array.isArray(value)) for (const item of value) positions(item, into);
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "pos" && typeof inner === "number") into.push(inner);
      else positions(inner, into);
    }
  }
  return into;
}

/** Deep trees are what these tests are about; the default depth limit would cut them short. */
const roomy = { ...defaultQueryLimits, maxExpressionDepth: 10_000, maxInListLength: 10_000, maxQueryLength: 1_000_000 };

// ---------------------------------------------------------------- arbitraries for the grammar

const hardKeywords = new Set(
  "and or not eq ne gt ge lt le has in add sub mul div divby mod true false null".split(" "),
);
const binaryOperators: BinaryOperator[] = [
  "eq",
  "ne",
  "gt",
  "ge",
  "lt",
  "le",
  "has",
  "and",
  "or",
  "add",
  "sub",
  "mul",
  "div",
  "divby",
  "mod",
];

// keywords match in any case, so `EQ` or `Null` is no identifier either
const identifier = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,7}$/)
  .filter((name) => !hardKeywords.has(name.toLowerCase()));
/** after `/` any word is a segment, operators included */
const laterSegment = fc.oneof(identifier, fc.constantFrom(...hardKeywords, "any", "all"));

const pathExpr: fc.Arbitrary<PathExpr> = fc
  .tuple(
    fc.oneof({ weight: 9, arbitrary: identifier }, { weight: 1, arbitrary: fc.constant("$it") }),
    fc.array(laterSegment, { maxLength: 3 }),
    fc.boolean(),
  )
  .map(([first, rest, count]) => ({
    kind: "path",
    segments: count ? [first, ...rest, "$count"] : [first, ...rest],
    pos: 0,
  }));

const pad = (n: number, width: number) => String(n).padStart(width, "0");
const dateParts = fc.record({
  year: fc.integer({ min: 0, max: 9999 }),
  month: fc.integer({ min: 1, max: 12 }),
  day: fc.integer({ min: 1, max: 28 }),
});
const dateText = dateParts.map(({ year, month, day }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`);
const dateTimeText = fc
  .tuple(
    dateText,
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.option(fc.tuple(fc.integer({ min: 0, max: 59 }), fc.option(fc.stringMatching(/^\d{1,9}$/)))),
    fc.oneof(
      fc.constant("Z"),
      fc
        .tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([s, h, m]) => `${s}${pad(h, 2)}:${pad(m, 2)}`),
    ),
  )
  .map(([date, hour, minute, seconds, zone]) => {
    const sec = seconds === null ? "" : `:${pad(seconds[0], 2)}${seconds[1] === null ? "" : `.${seconds[1]}`}`;
    return `${date}T${pad(hour, 2)}:${pad(minute, 2)}${sec}${zone}`;
  });

const timeOfDayText = fc
  .tuple(
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.option(fc.tuple(fc.integer({ min: 0, max: 59 }), fc.option(fc.stringMatching(/^\d{1,12}$/)))),
  )
  .map(([hour, minute, seconds]) => {
    const sec = seconds === null ? "" : `:${pad(seconds[0], 2)}${seconds[1] === null ? "" : `.${seconds[1]}`}`;
    return `${pad(hour, 2)}:${pad(minute, 2)}${sec}`;
  });
const durationText = fc
  .tuple(
    fc.boolean(),
    fc.option(fc.nat(999_999_999)),
    fc.option(fc.nat(99)),
    fc.option(fc.nat(99)),
    fc.option(fc.stringMatching(/^\d{1,9}(\.\d{1,9})?$/)),
  )
  .filter(([, d, h, m, s]) => d !== null || h !== null || m !== null || s !== null)
  .map(([minus, d, h, m, s]) => {
    const time = `${h === null ? "" : `${h}H`}${m === null ? "" : `${m}M`}${s === null ? "" : `${s}S`}`;
    return `${minus ? "-" : ""}P${d === null ? "" : `${d}D`}${time === "" ? "" : `T${time}`}`;
  });

const literal: fc.Arbitrary<Literal> = fc.oneof(
  fc.constant<Literal>({ kind: "null", pos: 0 }),
  fc.boolean().map((value): Literal => ({ kind: "boolean", value, pos: 0 })),
  fc
    .bigInt({ min: -(10n ** 20n), max: 10n ** 20n })
    .map((n): Literal => ({ kind: "integer", text: String(n), pos: 0 })),
  fc
    .tuple(
      fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
      fc.stringMatching(/^\d{1,6}$/),
      fc.option(fc.integer({ min: -30, max: 30 })),
    )
    .map(
      ([whole, fraction, exponent]): Literal => ({
        kind: "decimal",
        text: `${whole}.${fraction}${exponent === null ? "" : `e${exponent}`}`,
        pos: 0,
      }),
    ),
  fc.string({ unit: "binary", maxLength: 12 }).map((value): Literal => ({ kind: "string", value, pos: 0 })),
  fc.uuid().map((value): Literal => ({ kind: "guid", value, pos: 0 })),
  dateText.map((value): Literal => ({ kind: "date", value, pos: 0 })),
  dateTimeText.map((value): Literal => ({ kind: "dateTimeOffset", value, pos: 0 })),
  timeOfDayText.map((value): Literal => ({ kind: "timeOfDay", value, pos: 0 })),
  durationText.map((value): Literal => ({ kind: "duration", value, pos: 0 })),
);

const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", maxDepth: 6 },
    { weight: 3, arbitrary: literal },
    { weight: 3, arbitrary: pathExpr },
    fc.record({
      kind: fc.constant("binary" as const),
      op: fc.constantFrom(...binaryOperators),
      left: tie("expr"),
      right: tie("expr"),
      pos: fc.constant(0),
    }),
    fc.record({ kind: fc.constant("not" as const), operand: tie("expr"), pos: fc.constant(0) }),
    fc.record({ kind: fc.constant("negate" as const), operand: tie("expr"), pos: fc.constant(0) }),
    fc.record({
      kind: fc.constant("in" as const),
      operand: tie("expr"),
      // the list holds any expressions (expression-parser.ts listExpr), and may be empty
      list: fc.array(tie("expr"), { maxLength: 3 }),
      pos: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant("case" as const),
      branches: fc.array(fc.record({ when: tie("expr"), value: tie("expr") }), { minLength: 1, maxLength: 3 }),
      pos: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant("call" as const),
      // what case(), any() and all() are, a call of any other name is not
      name: identifier.filter((name) => !["case", "any", "all"].includes(name.toLowerCase())),
      args: fc.array(tie("expr"), { maxLength: 3 }),
      pos: fc.constant(0),
    }),
    fc
      .tuple(
        fc.constantFrom("any" as const, "all" as const),
        pathExpr.filter((p) => p.segments[p.segments.length - 1] !== "$count"),
        fc.option(fc.tuple(identifier, tie("expr"))),
      )
      // all() has no form without a condition
      .filter(([op, , body]) => op === "any" || body !== null)
      .map(
        ([op, collection, body]): Expr => ({
          kind: "lambda",
          op,
          collection,
          variable: body === null ? null : body[0],
          predicate: body === null ? null : body[1],
          pos: 0,
        }),
      ),
  ),
}));

// ---------------------------------------------------------------- properties

describe("generated expressions", () => {
  it("parse back to the tree they were printed from", () => {
    fc.assert(
      fc.property(expr, (generated) => {
        const text = printExpr(generated);
        expect(withoutPositions(parseFilter(text, roomy))).toEqual(withoutPositions(generated));
      }),
      { numRuns: 1000 },
    );
  });

  it("print the same after a round trip, and carry positions inside the text", () => {
    fc.assert(
      fc.property(expr, (generated) => {
        const text = printExpr(generated);
        const parsed = parseFilter(text, roomy);
        expect(printExpr(parsed)).toBe(text);
        for (const pos of positions(parsed)) {
          expect(pos).toBeGreaterThanOrEqual(0);
          expect(pos).toBeLessThan(text.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("parse with any amount of extra blanks around tokens", () => {
    fc.assert(
      fc.property(expr, fc.constantFrom(" ", "  ", "\t"), (generated, blank) => {
        const text = printExpr(generated);
        // blanks after `(`/`,` and before `)` are outside every token, whatever the tokens are
        const spaced = text.replace(/([(,])(?=(?:[^']*'[^']*')*[^']*$)/g, `$1${blank}`);
        expect(withoutPositions(parseFilter(`${blank}${spaced}${blank}`, roomy))).toEqual(withoutPositions(generated));
      }),
      { numRuns: 300 },
    );
  });
});

/** Calls `parse` and checks that it returns or throws a well-formed QuerySyntaxError. */
function parsesOrFailsCleanly(parse: (text: string) => unknown, text: string): void {
  try {
    parse(text);
  } catch (error) {
    if (!(error instanceof QuerySyntaxError)) throw error;
    expect(error.position).toBeGreaterThanOrEqual(0);
    expect(error.position).toBeLessThanOrEqual(text.length);
    expect(error.problem.length).toBeGreaterThan(0);
  }
}

const everyEntryPoint: ((text: string) => unknown)[] = [
  (text) => parseFilter(text),
  (text) => parseOrderBy(text),
  (text) => parseSelect(text),
  (text) => parseExpand(text),
  (text) => parseApply(text),
  (text) => parseCompute(text),
  (text) => parseTop(text),
  (text) => parseSkip(text),
  (text) => parseCount(text),
  (text) => parseResourcePath(text),
  (text) => parseSearch(text),
  (text) => parseQueryOptions({ $filter: text, $expand: text }),
];

/** Pieces of the language, so random input gets past the lexer and exercises the parser. */
const fragment = fc.constantFrom(
  ..."A B/C eq ne and or not in has add mul - ( ) , / ; = : * $count $it $select $filter $expand $top $orderby $compute $search= AND OR NOT \" 13:20 duration'P1D' bizdata.Post".split(
    " ",
  ),
  ..."any all any( all( d: 'x' '' ''' 1 -1 1.5 true null 2024-01-31 2024-01-31T10:00Z".split(" "),
  ..."6f1c2d3e-0a1b-4c2d-8e3f-123456789abc aggregate filter groupby with as sum asc desc contains( (( )) , ,,".split(
    " ",
  ),
  " ",
  "\t",
);
const fragmentText = fc.array(fragment, { maxLength: 25 }).map((parts) => parts.join(""));
const spacedFragmentText = fc.array(fragment, { maxLength: 25 }).map((parts) => parts.join(" "));

/** A valid expression with one edit: a character removed, inserted or replaced, or a slice doubled. */
const mutatedExpression = fc
  .tuple(
    expr.map(printExpr),
    fc.nat(),
    fc.nat(),
    fc.constantFrom(..."()',/$:-;=*@# \t\nAz09."),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([text, a, b, char, edit]) => {
    const i = text.length === 0 ? 0 : a % text.length;
    const j = text.length === 0 ? 0 : b % text.length;
    switch (edit) {
      case 0:
        return text.slice(0, i) + text.slice(i + 1);
      case 1:
        return text.slice(0, i) + char + text.slice(i);
      case 2:
        return text.slice(0, i) + char + text.slice(i + 1);
      default:
        return text.slice(0, Math.max(i, j)) + text.slice(Math.min(i, j));
    }
  });

describe("any input", () => {
  it.each([
    ["arbitrary strings", fc.string({ unit: "binary", maxLength: 60 })],
    ["strings of language fragments", fragmentText],
    ["space-separated language fragments", spacedFragmentText],
    ["mutated valid expressions", mutatedExpression],
  ])("%s: every entry point returns or throws a QuerySyntaxError inside the text", (_name, input) => {
    fc.assert(
      fc.property(input, (text) => {
        for (const parse of everyEntryPoint) parsesOrFailsCleanly(parse, text);
      }),
      { numRuns: 500 },
    );
  });
});
