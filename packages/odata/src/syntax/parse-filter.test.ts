import { describe, expect, it } from "vitest";
import type { Expr } from "./ast.js";
import { parseFilter } from "./index.js";

/** Compact tree notation so the tables below show structure: `(eq A int:1)`. */
function tree(expr: Expr): string {
  switch (expr.kind) {
    case "null":
      return "null";
    case "boolean":
      return String(expr.value);
    case "integer":
      return `int:${expr.text}`;
    case "decimal":
      return `dec:${expr.text}`;
    case "string":
      return `str:${expr.value}`;
    case "guid":
    case "date":
    case "dateTimeOffset":
    case "timeOfDay":
    case "duration":
      return `${expr.kind}:${expr.value}`;
    case "parameterAlias":
      return `@${expr.name}`;
    case "path":
      return expr.segments.join("/");
    case "binary":
      return `(${expr.op} ${tree(expr.left)} ${tree(expr.right)})`;
    case "not":
      return `(not ${tree(expr.operand)})`;
    case "negate":
      return `(- ${tree(expr.operand)})`;
    case "in":
      return `(in ${tree(expr.operand)} ${"kind" in expr.list ? tree(expr.list) : `[${expr.list.map(tree).join(" ")}]`})`;
    case "call":
      return `${expr.name}(${expr.args.map(tree).join(" ")})`;
    case "case":
      return `(case ${expr.branches.map((b) => `${tree(b.when)}:${tree(b.value)}`).join(" ")})`;
    case "lambda":
      return `(${expr.op} ${tree(expr.collection)}${expr.variable === null ? "" : ` ${expr.variable}:`}${
        expr.predicate === null ? "" : ` ${tree(expr.predicate)}`
      })`;
  }
}

const parsed = (text: string) => tree(parseFilter(text));

describe("parseFilter: operators", () => {
  it.each([
    ["A eq 1", "(eq A int:1)"],
    ["A ne 1", "(ne A int:1)"],
    ["A gt 1", "(gt A int:1)"],
    ["A ge 1", "(ge A int:1)"],
    ["A lt 1", "(lt A int:1)"],
    ["A le 1", "(le A int:1)"],
    ["A has 1", "(has A int:1)"],
    ["A in (1)", "(in A [int:1])"],
    ["A in (1, 2,3)", "(in A [int:1 int:2 int:3])"],
    ["A in ('x','y')", "(in A [str:x str:y])"],
    ["A in ()", "(in A [])"],
    ["A in ( )", "(in A [])"],
    ["A in (null,@p,-1)", "(in A [null @p int:-1])"],
    // items may be properties and expressions (a widening of the ABNF's literals-only listExpr)
    ["Price in (Cost, 10)", "(in Price [Cost int:10])"],
    ["A in ('x',B/C,tolower(D),-E,1 add 2)", "(in A [str:x B/C tolower(D) (- E) (add int:1 int:2)])"],
    ["A in ((B))", "(in A [B])"],
    ["A and B", "(and A B)"],
    ["A or B", "(or A B)"],
    ["not A", "(not A)"],
    ["not(A)", "(not A)"],
    ["A add 1", "(add A int:1)"],
    ["A sub 1", "(sub A int:1)"],
    ["A mul 1", "(mul A int:1)"],
    ["A div 1", "(div A int:1)"],
    ["A divby 2", "(divby A int:2)"],
    ["Rating DIVBY 2 eq 2.5", "(eq (divby Rating int:2) dec:2.5)"],
    ["A add B divby C", "(add A (divby B C))"],
    ["A mod 1", "(mod A int:1)"],
    ["-Cost", "(- Cost)"],
    ["- 5", "(- int:5)"],
    ["-(5)", "(- int:5)"],
    ["--A", "(- (- A))"],
    ["not not A", "(not (not A))"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: precedence and associativity (URL conventions 5.1.1.1)", () => {
  it.each([
    ["A or B and C", "(or A (and B C))"],
    ["A and B or C", "(or (and A B) C)"],
    ["A eq 1 and B eq 2", "(and (eq A int:1) (eq B int:2))"],
    ["A eq 1 or B eq 2 and C eq 3", "(or (eq A int:1) (and (eq B int:2) (eq C int:3)))"],
    ["A lt B eq C gt D", "(eq (lt A B) (gt C D))"],
    ["A add B gt C mul D", "(gt (add A B) (mul C D))"],
    ["A add B mul C", "(add A (mul B C))"],
    ["A mul B add C", "(add (mul A B) C)"],
    ["A sub B sub C", "(sub (sub A B) C)"],
    ["A div B mul C mod D", "(mod (mul (div A B) C) D)"],
    ["A divby B mul C", "(mul (divby A B) C)"],
    ["A or B or C", "(or (or A B) C)"],
    ["(A or B) and C", "(and (or A B) C)"],
    ["A and (B or C)", "(and A (or B C))"],
    ["A mul (B add C)", "(mul A (add B C))"],
    ["not A eq B", "(eq (not A) B)"],
    ["not (A eq B)", "(not (eq A B))"],
    ["-A mul B", "(mul (- A) B)"],
    ["-(A mul B)", "(- (mul A B))"],
    ["A add 1 in (2,3)", "(in (add A int:1) [int:2 int:3])"],
    ["A in (1,2) eq true", "(eq (in A [int:1 int:2]) true)"],
    ["A in (1) and B in (2)", "(and (in A [int:1]) (in B [int:2]))"],
    ["A has B eq true", "(eq (has A B) true)"],
    ["A gt 1 in (true)", "(in (gt A int:1) [true])"],
    ["((((A))))", "A"],
    ["A eq 1 and B eq 2 or C eq 3 and not D", "(or (and (eq A int:1) (eq B int:2)) (and (eq C int:3) (not D)))"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: literals", () => {
  it.each([
    ["'abc'", "str:abc"],
    ["''", "str:"],
    ["'O''Brien'", "str:O'Brien"],
    ["''''", "str:'"],
    ["'a''''b'", "str:a''b"],
    ["'with spaces and (parens), commas; and eq'", "str:with spaces and (parens), commas; and eq"],
    ["'ünïcödé €'", "str:ünïcödé €"],
    ["0", "int:0"],
    ["42", "int:42"],
    ["-42", "int:-42"],
    ["007", "int:007"],
    ["12345678901234567890123", "int:12345678901234567890123"],
    ["1.5", "dec:1.5"],
    ["-0.25", "dec:-0.25"],
    ["10.50", "dec:10.50"],
    ["1e10", "dec:1e10"],
    ["1.5E-3", "dec:1.5E-3"],
    ["2e+2", "dec:2e+2"],
    ["true", "true"],
    ["false", "false"],
    ["null", "null"],
    ["6f1c2d3e-0a1b-4c2d-8e3f-123456789abc", "guid:6f1c2d3e-0a1b-4c2d-8e3f-123456789abc"],
    ["6F1C2D3E-0A1B-4C2D-8E3F-123456789ABC", "guid:6F1C2D3E-0A1B-4C2D-8E3F-123456789ABC"],
    ["12345678-1234-1234-1234-123456789012", "guid:12345678-1234-1234-1234-123456789012"],
    ["abcdef12-3456-7890-abcd-ef1234567890", "guid:abcdef12-3456-7890-abcd-ef1234567890"],
    ["2024-01-31", "date:2024-01-31"],
    ["2024-02-29", "date:2024-02-29"],
    ["2024-01-31T10:00:00Z", "dateTimeOffset:2024-01-31T10:00:00Z"],
    ["2024-01-31T10:00Z", "dateTimeOffset:2024-01-31T10:00Z"],
    ["2024-01-31T10:00:00.123Z", "dateTimeOffset:2024-01-31T10:00:00.123Z"],
    ["2024-01-31T10:00:00.1234567+01:00", "dateTimeOffset:2024-01-31T10:00:00.1234567+01:00"],
    ["2024-01-31T23:59:59-05:30", "dateTimeOffset:2024-01-31T23:59:59-05:30"],
    ["2024-01-31t10:00:00z", "dateTimeOffset:2024-01-31t10:00:00z"],
    ["13:20", "timeOfDay:13:20"],
    ["13:20:00", "timeOfDay:13:20:00"],
    ["00:00:00.5", "timeOfDay:00:00:00.5"],
    ["23:59:59.123456789012", "timeOfDay:23:59:59.123456789012"],
    ["duration'P1DT2H'", "duration:P1DT2H"],
    ["duration'PT0.5S'", "duration:PT0.5S"],
    ["duration'-P3D'", "duration:-P3D"],
    ["duration'PT1H30M'", "duration:PT1H30M"],
    ["DURATION'P1D'", "duration:P1D"],
    // OData 4.01: the prefix is optional; unprefixed it is a string until it meets a duration
    ["'P1D'", "str:P1D"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });

  it.each([
    ["Opens lt 13:20:00", "(lt Opens timeOfDay:13:20:00)"],
    [
      "LeadTime ge duration'P1D' and Opens in (08:00,09:30)",
      "(and (ge LeadTime duration:P1D) (in Opens [timeOfDay:08:00 timeOfDay:09:30]))",
    ],
    ["At add duration'PT1H' gt now()", "(gt (add At duration:PT1H) now())"],
    ["-duration'P1D' lt LeadTime", "(lt (- duration:P1D) LeadTime)"],
    ["duration eq 1", "(eq duration int:1)"],
    ["durations/any(d:d lt duration'PT1S')", "(any durations d: (lt d duration:PT1S))"],
  ])("times and durations in expressions: %s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });

  it("keeps integer and decimal source text instead of converting to a number", () => {
    expect(parseFilter("A eq 9007199254740993.000000000001")).toMatchObject({
      right: { kind: "decimal", text: "9007199254740993.000000000001" },
    });
  });
});

describe("parseFilter: functions", () => {
  it.each([
    ["contains(SKU,'AB')", "contains(SKU str:AB)"],
    ["startswith(SKU, 'AB')", "startswith(SKU str:AB)"],
    ["endswith(SKU,'AB')", "endswith(SKU str:AB)"],
    ["length(Name) gt 3", "(gt length(Name) int:3)"],
    ["indexof(Name,'x') eq 1", "(eq indexof(Name str:x) int:1)"],
    ["substring(Name,1)", "substring(Name int:1)"],
    ["substring(Name,1,2)", "substring(Name int:1 int:2)"],
    ["tolower(Name) eq 'x'", "(eq tolower(Name) str:x)"],
    ["toupper(Name)", "toupper(Name)"],
    ["trim(Name)", "trim(Name)"],
    ["concat(concat(FirstName,' '),LastName)", "concat(concat(FirstName str: ) LastName)"],
    ["year(D) eq 2024", "(eq year(D) int:2024)"],
    ["month(D)", "month(D)"],
    ["day(D)", "day(D)"],
    ["hour(D)", "hour(D)"],
    ["minute(D)", "minute(D)"],
    ["second(D)", "second(D)"],
    ["round(Cost)", "round(Cost)"],
    ["floor(Cost)", "floor(Cost)"],
    ["ceiling(Cost)", "ceiling(Cost)"],
    ["D lt now()", "(lt D now())"],
    ["now( )", "now()"],
    ["contains(tolower(PrimaryContact/FullName), 'smith')", "contains(tolower(PrimaryContact/FullName) str:smith)"],
    ["round(Cost mul 1.1) ge 10", "(ge round((mul Cost dec:1.1)) int:10)"],
    ["MyFunction(1)", "MyFunction(int:1)"],
    ["not contains(SKU,'A')", "(not contains(SKU str:A))"],
    ["-round(Cost)", "(- round(Cost))"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: case (ABNF caseExpr)", () => {
  it.each([
    ["case(X gt 0:1,X lt 0:-1,true:0)", "(case (gt X int:0):int:1 (lt X int:0):int:-1 true:int:0)"],
    ["case( X gt 0 : 1 , X lt 0 : -1 , true : 0)", "(case (gt X int:0):int:1 (lt X int:0):int:-1 true:int:0)"],
    ["CASE(A:'a')", "(case A:str:a)"],
    ["case(A eq 1:B add 1,true:null) gt 2", "(gt (case (eq A int:1):(add B int:1) true:null) int:2)"],
    ["case(A:case(B:1,true:2),true:3)", "(case A:(case B:int:1 true:int:2) true:int:3)"],
    ["Items/any(i:case(i/Q gt 1:true,true:false))", "(any Items i: (case (gt i/Q int:1):true true:false))"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: paths and lambdas", () => {
  it.each([
    ["PrimaryContact/MailingAddress/State eq 'PA'", "(eq PrimaryContact/MailingAddress/State str:PA)"],
    ["Details/$count gt 2", "(gt Details/$count int:2)"],
    ["$it/Name eq 'x'", "(eq $it/Name str:x)"],
    ["$it eq 5", "(eq $it int:5)"],
    ["Details/any(d: d/Quantity gt 5)", "(any Details d: (gt d/Quantity int:5))"],
    ["Details/all(d:d/Product/SKU eq 'X')", "(all Details d: (eq d/Product/SKU str:X))"],
    ["Uoms/any()", "(any Uoms)"],
    ["Uoms/any( )", "(any Uoms)"],
    [
      "SellToCustomer/Orders/any(o:o/Details/any(d:d/Quantity gt 1))",
      "(any SellToCustomer/Orders o: (any o/Details d: (gt d/Quantity int:1)))",
    ],
    ["not Details/any()", "(not (any Details))"],
    ["Details/any(d:d/Quantity gt 5) and Uoms/any()", "(and (any Details d: (gt d/Quantity int:5)) (any Uoms))"],
    [
      "Details/any(x: x/Product/Uoms/any(u: u/Name eq 'kg'))",
      "(any Details x: (any x/Product/Uoms u: (eq u/Name str:kg)))",
    ],
    ["_private/a_b_1 eq 1", "(eq _private/a_b_1 int:1)"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });

  it.each([
    // keyword-vs-identifier: longer_alt makes these names, not `or`, `eq`, `in`, … plus a rest
    ["Order eq 1", "(eq Order int:1)"],
    ["equipment eq 1", "(eq equipment int:1)"],
    ["android and orbit", "(and android orbit)"],
    ["notes ne nullable", "(ne notes nullable)"],
    ["index in ('inside')", "(in index [str:inside])"],
    ["truer eq falsey", "(eq truer falsey)"],
    ["address add subtotal", "(add address subtotal)"],
    ["divide div divby_x", "(div divide divby_x)"],
    ["has_x has hash", "(has has_x hash)"],
    ["ascending eq descending", "(eq ascending descending)"],
    ["ANDROID eq Orbit", "(eq ANDROID Orbit)"],
    ["Equals eq NOTES", "(eq Equals NOTES)"],
    // words with a meaning only elsewhere are still property names
    ["filter eq desc", "(eq filter desc)"],
    ["aggregate eq groupby", "(eq aggregate groupby)"],
    ["with eq as", "(eq with as)"],
    ["any eq all", "(eq any all)"],
    // after `/` even operator words are segments
    ["A/eq/in/true eq 1", "(eq A/eq/in/true int:1)"],
  ])("names that look like keywords: %s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });

  it("keeps a lambda's collection as a path node", () => {
    expect(parseFilter("Details/any(d:d/Quantity gt 5)")).toMatchObject({
      kind: "lambda",
      op: "any",
      collection: { kind: "path", segments: ["Details"], pos: 0 },
      variable: "d",
      predicate: { kind: "binary", op: "gt" },
    });
    expect(parseFilter("Uoms/any()")).toMatchObject({ variable: null, predicate: null });
  });
});

describe("parseFilter: keywords in any case (ABNF strings are case-insensitive, RFC 5234)", () => {
  it.each([
    ["A EQ 1", "(eq A int:1)"],
    ["A Eq 1 AND B ne 2", "(and (eq A int:1) (ne B int:2))"],
    ["A eq 1 Or B GT 2", "(or (eq A int:1) (gt B int:2))"],
    ["NOT A", "(not A)"],
    ["A IN (1,2)", "(in A [int:1 int:2])"],
    ["A eq TRUE or B eq False", "(or (eq A true) (eq B false))"],
    ["A eq NULL", "(eq A null)"],
    [
      "A ADD 1 MUL 2 Sub 3 DIV 4 MOD 5 ge 0",
      "(ge (sub (add A (mul int:1 int:2)) (mod (div int:3 int:4) int:5)) int:0)",
    ],
    ["A HAS B", "(has A B)"],
    ["Details/$COUNT gt 1", "(gt Details/$count int:1)"],
    ["$IT/Name eq 'x'", "(eq $it/Name str:x)"],
    ["Details/ANY(d: d/Q gt 1)", "(any Details d: (gt d/Q int:1))"],
    ["Details/All(d: d/Q gt 1)", "(all Details d: (gt d/Q int:1))"],
    ["CONTAINS(Name,'x')", "CONTAINS(Name str:x)"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: a leading + on numbers (ABNF sign)", () => {
  it.each([
    ["A eq +5", "(eq A int:5)"],
    ["A eq +2.5", "(eq A dec:2.5)"],
    ["A eq +1e3", "(eq A dec:1e3)"],
    ["A eq 1e+3", "(eq A dec:1e+3)"],
    ["A add +5 gt -3", "(gt (add A int:5) int:-3)"],
    ["A in (+1,-1)", "(in A [int:1 int:-1])"],
  ])("%s", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: whitespace", () => {
  it.each([
    ["  A eq 1  ", "(eq A int:1)"],
    ["A\teq\t1", "(eq A int:1)"],
    ["A   eq   1", "(eq A int:1)"],
    ["contains( SKU , 'A' )", "contains(SKU str:A)"],
    ["( A eq 1 )", "(eq A int:1)"],
    ["A in ( 1 , 2 )", "(in A [int:1 int:2])"],
  ])("%j", (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });
});

describe("parseFilter: positions", () => {
  it("gives every node the offset of its first character", () => {
    //           0         1         2         3         4
    //           0123456789012345678901234567890123456789012345
    const text = "(A/B eq 'x') and not contains(C, -1) or -D in (1)";
    expect(parseFilter(text)).toEqual({
      kind: "binary",
      op: "or",
      pos: 0,
      left: {
        kind: "binary",
        op: "and",
        pos: 0,
        left: {
          kind: "binary",
          op: "eq",
          pos: 1,
          left: { kind: "path", segments: ["A", "B"], pos: 1 },
          right: { kind: "string", value: "x", pos: 8 },
        },
        right: {
          kind: "not",
          pos: 17,
          operand: {
            kind: "call",
            name: "contains",
            pos: 21,
            args: [
              { kind: "path", segments: ["C"], pos: 30 },
              { kind: "integer", text: "-1", pos: 33 },
            ],
          },
        },
      },
      right: {
        kind: "in",
        pos: 40,
        operand: { kind: "negate", pos: 40, operand: { kind: "path", segments: ["D"], pos: 41 } },
        list: [{ kind: "integer", text: "1", pos: 47 }],
      },
    });
  });

  it("positions a lambda and its predicate", () => {
    expect(parseFilter("X eq 1 or Details/any(d: d/Q gt 5)")).toMatchObject({
      right: {
        kind: "lambda",
        pos: 10,
        collection: { pos: 10 },
        predicate: { pos: 25, left: { pos: 25 }, right: { pos: 32 } },
      },
    });
  });
});
