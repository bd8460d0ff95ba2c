import { describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import {
  parseApply,
  parseCompute,
  parseCount,
  parseExpand,
  parseOrderBy,
  parseQueryOptions,
  parseSelect,
  parseSkip,
  parseTop,
  printExpr,
  QuerySyntaxError,
} from "./index.js";

const path = (segments: string[], pos: number) => ({ kind: "path", segments, pos });

describe("parseOrderBy", () => {
  it.each([
    ["Name", [["Name", "asc"]]],
    ["Name asc", [["Name", "asc"]]],
    ["Name desc", [["Name", "desc"]]],
    [
      "SellToCustomer/Id desc,DocNumber",
      [
        ["SellToCustomer/Id", "desc"],
        ["DocNumber", "asc"],
      ],
    ],
    [
      "A desc, B asc, C",
      [
        ["A", "desc"],
        ["B", "asc"],
        ["C", "asc"],
      ],
    ],
    ["tolower(Name) desc", [["tolower(Name)", "desc"]]],
    ["Quantity mul UnitPrice desc", [["Quantity mul UnitPrice", "desc"]]],
    ["Details/$count desc", [["Details/$count", "desc"]]],
    ["Sku", [["Sku", "asc"]]],
    // a property called like a direction is still a property
    ["desc desc", [["desc", "desc"]]],
    ["ascending", [["ascending", "asc"]]],
    // keywords in any case (ABNF strings are case-insensitive)
    [
      "Name DESC, Id Asc",
      [
        ["Name", "desc"],
        ["Id", "asc"],
      ],
    ],
  ])("%s", (text, expected) => {
    expect(parseOrderBy(text).map((item) => [printExpr(item.expr), item.direction])).toEqual(expected);
  });

  it("positions items at their expression", () => {
    expect(parseOrderBy("A desc, (B)").map((item) => item.pos)).toEqual([0, 8]);
  });
});

describe("parseSelect", () => {
  it.each([
    ["Guid", [["Guid"]]],
    ["SKU,SalesDescription,Cost", [["SKU"], ["SalesDescription"], ["Cost"]]],
    ["PrimaryContact/MailingAddress/City", [["PrimaryContact", "MailingAddress", "City"]]],
    ["*", [["*"]]],
    ["Guid, *", [["Guid"], ["*"]]],
    ["RecordReadOnly", [["RecordReadOnly"]]],
    // keyword-looking names are names in a select list
    ["in,desc,null", [["in"], ["desc"], ["null"]]],
  ])("%s", (text, expected) => {
    expect(parseSelect(text).map((item) => item.path)).toEqual(expected);
  });

  it("positions items", () => {
    expect(parseSelect("A, B/C,*")).toEqual([
      { path: ["A"], pos: 0 },
      { path: ["B", "C"], pos: 3 },
      { path: ["*"], pos: 7 },
    ]);
  });
});

describe("parseExpand", () => {
  it("reads plain items and paths", () => {
    expect(parseExpand("PrimaryContact,Details, MailingAddress/Country")).toEqual([
      { path: ["PrimaryContact"], options: {}, pos: 0 },
      { path: ["Details"], options: {}, pos: 15 },
      { path: ["MailingAddress", "Country"], options: {}, pos: 24 },
    ]);
  });

  it("reads every nested option, three levels deep", () => {
    const text =
      "Details($select=Quantity,UnitPrice;$filter=Quantity gt 5;$orderby=Quantity desc;$top=10;$skip=2;$count=true;" +
      "$compute=Quantity mul UnitPrice as Line;" +
      "$expand=Product($select=SKU;$count=false;$expand=Uoms($select=Name;$filter=Name ne 'x';$orderby=Name;$top=1;$skip=0;$compute=length(Name) as L))),PriceLevel";
    const [details, priceLevel] = parseExpand(text);
    expect(priceLevel).toEqual({ path: ["PriceLevel"], options: {}, pos: text.indexOf("PriceLevel") });
    expect(details?.path).toEqual(["Details"]);
    const options = details?.options;
    expect(options?.select?.map((s) => s.path)).toEqual([["Quantity"], ["UnitPrice"]]);
    expect(options?.filter && printExpr(options.filter)).toBe("Quantity gt 5");
    expect(options?.orderby?.map((o) => [printExpr(o.expr), o.direction])).toEqual([["Quantity", "desc"]]);
    expect(options?.top).toBe(10);
    expect(options?.skip).toBe(2);
    expect(options?.count).toBe(true);
    expect(options?.compute?.map((c) => [printExpr(c.expr), c.alias])).toEqual([["Quantity mul UnitPrice", "Line"]]);

    const product = options?.expand?.[0];
    expect(product?.path).toEqual(["Product"]);
    expect(product?.options.select?.map((s) => s.path)).toEqual([["SKU"]]);
    expect(product?.options.count).toBe(false);

    const uoms = product?.options.expand?.[0];
    expect(uoms?.path).toEqual(["Uoms"]);
    expect(uoms?.options.select?.map((s) => s.path)).toEqual([["Name"]]);
    expect(uoms?.options.filter && printExpr(uoms.options.filter)).toBe("Name ne 'x'");
    expect(uoms?.options.orderby?.map((o) => o.direction)).toEqual(["asc"]);
    expect(uoms?.options.top).toBe(1);
    expect(uoms?.options.skip).toBe(0);
    expect(uoms?.options.compute?.map((c) => c.alias)).toEqual(["L"]);
  });

  it.each([
    ["Details(select=Quantity;top=2)", { select: [{ path: ["Quantity"] }], top: 2 }],
    ["Details($SELECT=Quantity;$Top=2;COUNT=TRUE)", { select: [{ path: ["Quantity"] }], top: 2, count: true }],
    ["Details(filter=Quantity GT 1;orderby=Quantity DESC;skip=1)", { skip: 1, orderby: [{ direction: "desc" }] }],
    ["Details(expand=Product(select=SKU);compute=Quantity as Q)", { expand: [{ path: ["Product"] }] }],
    // a property called like an option is still a property
    ["Details(select=top,count,select)", { select: [{ path: ["top"] }, { path: ["count"] }, { path: ["select"] }] }],
  ])("%s: option names without $ and in any case (OData 4.01)", (text, options) => {
    expect(parseExpand(text)[0]?.options).toMatchObject(options);
  });

  it("rejects the same option twice, with and without $", () => {
    expect(() => parseExpand("Details($top=1;top=2)")).toThrow(
      new QuerySyntaxError("$expand", 15, "option 'top' is repeated"),
    );
  });

  it("reports positions of nested nodes inside the whole $expand value", () => {
    const text = "A($expand=B($filter=X eq 1))";
    const filter = parseExpand(text)[0]?.options.expand?.[0]?.options.filter;
    expect(filter).toMatchObject({ kind: "binary", pos: text.indexOf("X"), right: { pos: text.indexOf("1") } });
  });

  it("allows blanks around separators", () => {
    expect(parseExpand(" A ( $select =X , Y ; $top =3 ) , B ")).toMatchObject([
      { path: ["A"], options: { select: [{ path: ["X"] }, { path: ["Y"] }], top: 3 } },
      { path: ["B"] },
    ]);
  });

  it.each([
    ["A($top= 3)", 7],
    ["A($select=X;$filter=\tX eq 1)", 20],
    ["A(top=  3)", 6],
    ["A($expand= B)", 10],
  ])("%j: a blank after '=' is an error at %i (the ABNF has no BWS there)", (text, position) => {
    expect(() => parseExpand(text)).toThrow(new QuerySyntaxError("$expand", position, "no blank is allowed after '='"));
  });

  it("accepts exactly maxExpandDepth levels and maxExpandWidth items", () => {
    const limits = { ...defaultQueryLimits, maxExpandDepth: 3, maxExpandWidth: 3 };
    expect(() => parseExpand("A($expand=B($expand=C))", limits)).not.toThrow();
    expect(() => parseExpand("A,B,C", limits)).not.toThrow();
    expect(() => parseExpand("A($expand=B($expand=C($expand=D)))", limits)).toThrow(
      "Syntax error in $expand at position 30: $expand is nested more than 3 levels deep",
    );
    expect(() => parseExpand("A,B,C,D", limits)).toThrow(
      "Syntax error in $expand at position 6: more than 3 $expand items at one level",
    );
    expect(() => parseExpand("X($expand=A,B,C,D)", limits)).toThrow("at position 16: more than 3 $expand items");
  });
});

describe("parseApply", () => {
  it("reads filter, aggregate and groupby chained with /", () => {
    const text =
      "filter(Status eq 'Open')/groupby((SellToCustomer/Id,PriceLevel),aggregate(TotalPrice with sum as Total,$count as N))/aggregate(Total with max as Largest)";
    const steps = parseApply(text);
    expect(steps.map((s) => s.kind)).toEqual(["filter", "groupby", "aggregate"]);
    expect(steps[0]).toMatchObject({ kind: "filter", pos: 0, predicate: { kind: "binary", op: "eq" } });
    expect(steps[1]).toEqual({
      kind: "groupby",
      pos: 25,
      groups: [path(["SellToCustomer", "Id"], 34), path(["PriceLevel"], text.indexOf("PriceLevel"))],
      aggregate: [
        {
          kind: "aggregate",
          expr: path(["TotalPrice"], text.indexOf("TotalPrice")),
          method: "sum",
          alias: "Total",
          pos: text.indexOf("TotalPrice"),
        },
        { kind: "aggregate", expr: null, method: "count", alias: "N", pos: text.indexOf("$count") },
      ],
    });
    expect(steps[2]).toMatchObject({ kind: "aggregate", items: [{ method: "max", alias: "Largest" }] });
  });

  it.each([
    ["aggregate(Quantity with sum as M)", "sum"],
    ["aggregate(Cost with min as M)", "min"],
    ["aggregate(Cost with max as M)", "max"],
    ["aggregate(Cost with average as M)", "average"],
    ["aggregate(Product/SKU with countdistinct as M)", "countdistinct"],
    ["aggregate($count as M)", "count"],
  ])("%s", (text, method) => {
    expect(parseApply(text)).toMatchObject([{ kind: "aggregate", items: [{ method, alias: "M" }] }]);
  });

  it("reads several aggregates and expressions as their input", () => {
    const [step] = parseApply(
      "aggregate(Quantity with sum as Total, Quantity mul UnitPrice with sum as Revenue, Cost with max as M)",
    );
    expect(step).toMatchObject({ kind: "aggregate" });
    if (step?.kind !== "aggregate") throw new Error("not an aggregate");
    expect(step.items.map((i) => [i.expr && printExpr(i.expr), i.method, i.alias])).toEqual([
      ["Quantity", "sum", "Total"],
      ["Quantity mul UnitPrice", "sum", "Revenue"],
      ["Cost", "max", "M"],
    ]);
  });

  it("reads groupby without aggregate, and paths through references", () => {
    expect(parseApply("groupby((A))")).toEqual([
      { kind: "groupby", groups: [path(["A"], 9)], aggregate: null, pos: 0 },
    ]);
    expect(parseApply("groupby((A,B/C))")[0]).toMatchObject({
      groups: [{ segments: ["A"] }, { segments: ["B", "C"] }],
    });
    expect(parseApply("groupby((A),aggregate(X with average as Y))")[0]).toMatchObject({
      aggregate: [{ method: "average", alias: "Y", expr: { segments: ["X"] } }],
    });
  });

  it("reads transformation and method names in any case", () => {
    expect(parseApply("FILTER(A EQ 1)/GroupBy((B),Aggregate(C WITH Sum AS S))")).toMatchObject([
      { kind: "filter" },
      { kind: "groupby", aggregate: [{ method: "sum", alias: "S" }] },
    ]);
    expect(parseApply("aggregate($COUNT AS N)")).toMatchObject([{ items: [{ method: "count", alias: "N" }] }]);
  });

  it("filter accepts a full boolean expression", () => {
    const [step] = parseApply("filter(Details/any(d:d/Quantity gt 5) and not (Cost lt 1))");
    expect(step?.kind === "filter" && printExpr(step.predicate)).toBe(
      "Details/any(d:d/Quantity gt 5) and not (Cost lt 1)",
    );
  });
});

describe("parseCompute", () => {
  it("reads `expr as alias` items", () => {
    expect(parseCompute("Quantity mul UnitPrice as LineTotal, tolower(Name) as lower")).toEqual([
      {
        expr: { kind: "binary", op: "mul", left: path(["Quantity"], 0), right: path(["UnitPrice"], 13), pos: 0 },
        alias: "LineTotal",
        pos: 0,
      },
      {
        expr: { kind: "call", name: "tolower", args: [path(["Name"], 45)], pos: 37 },
        alias: "lower",
        pos: 37,
      },
    ]);
  });
});

describe("parseTop, parseSkip, parseCount", () => {
  it.each([
    ["0", 0],
    ["5", 5],
    ["1000", 1000],
    ["007", 7],
  ])("parseTop(%j) = %d", (text, value) => {
    expect(parseTop(text)).toBe(value);
  });

  it.each([
    ["0", 0],
    ["123456", 123456],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])("parseSkip(%j) = %d", (text, value) => {
    expect(parseSkip(text)).toBe(value);
  });

  it.each([
    ["-1", 0, "must not be negative"],
    ["1.5", 1, "must be an integer"],
    ["1e3", 1, "must be an integer"],
    ["abc", 0, "expected a non-negative integer but found 'a'"],
    ["", 0, "expected a non-negative integer but found end of input"],
    [" 7", 0, "no blank is allowed after '='"],
    ["\t7", 0, "no blank is allowed after '='"],
    ["7 ", 1, "no blank is allowed in a number"],
    ["5 6", 1, "no blank is allowed in a number"],
    ["+5", 0, "expected a non-negative integer but found '+'"],
    ["1001", 0, "must not be larger than 1000"],
    ["9007199254740992", 0, "must not be larger than 1000"],
  ])("parseTop(%j) fails at %d: %s", (text, position, problem) => {
    expect(() => parseTop(text)).toThrow(new QuerySyntaxError("$top", position, problem));
  });

  it("caps $skip at the largest safe integer, not at the page size", () => {
    expect(parseSkip("5000")).toBe(5000);
    expect(() => parseSkip("9007199254740992")).toThrow(
      new QuerySyntaxError("$skip", 0, `must not be larger than ${Number.MAX_SAFE_INTEGER}`),
    );
    expect(() => parseSkip("-0")).toThrow(new QuerySyntaxError("$skip", 0, "must not be negative"));
  });

  it("caps $top at the configured page size", () => {
    expect(parseTop("50", { ...defaultQueryLimits, maxPageSize: 50 })).toBe(50);
    expect(() => parseTop("51", { ...defaultQueryLimits, maxPageSize: 50 })).toThrow("must not be larger than 50");
  });

  it.each([
    ["true", true],
    ["false", false],
    ["TRUE", true],
    ["False", false],
  ])("parseCount(%j) = %s", (text, value) => {
    expect(parseCount(text)).toBe(value);
  });

  it.each([["true "], ["1"], ["yes"], [""], ["truee"]])("parseCount(%j) fails", (text) => {
    expect(() => parseCount(text)).toThrow(new QuerySyntaxError("$count", 0, "expected true or false"));
  });

  it("parseCount refuses a blank after '='", () => {
    expect(() => parseCount(" true")).toThrow(new QuerySyntaxError("$count", 0, "no blank is allowed after '='"));
  });
});

describe("parseQueryOptions", () => {
  it("reads every option and leaves declared method parameters to the caller", () => {
    const params = new URLSearchParams();
    params.set("$filter", "Cost gt 5");
    params.set("$orderby", "SKU desc");
    params.set("$select", "SKU,Cost");
    params.set("$expand", "Uoms($select=Name)");
    params.set("$top", "10");
    params.set("$skip", "20");
    params.set("$count", "true");
    params.set("$apply", "aggregate(Cost with sum as Total)");
    params.set("$compute", "Cost mul 2 as Double");
    params.set("customerId", "C1");
    const options = parseQueryOptions(params, defaultQueryLimits, new Set(["customerId"]));
    expect(Object.keys(options).sort()).toEqual(
      ["apply", "compute", "count", "expand", "filter", "orderby", "select", "skip", "top"].sort(),
    );
    expect(options.top).toBe(10);
    expect(options.skip).toBe(20);
    expect(options.count).toBe(true);
    expect(options.filter && printExpr(options.filter)).toBe("Cost gt 5");
  });

  it("accepts a plain record and leaves absent options out", () => {
    expect(
      parseQueryOptions({ $top: "1", salesOrderGuid: "x" }, defaultQueryLimits, new Set(["salesOrderGuid"])),
    ).toEqual({
      top: 1,
    });
    expect(parseQueryOptions({})).toEqual({});
  });

  it("matches option names case-insensitively (OData 4.01)", () => {
    expect(parseQueryOptions({ $TOP: "3", $Select: "A" })).toEqual({ top: 3, select: [{ path: ["A"], pos: 0 }] });
  });

  it.each([
    ["filter=A eq 1", "filter"],
    ["FILTER=A eq 1", "filter"],
    ["$FILTER=A eq 1", "filter"],
    ["Filter=A eq 1", "filter"],
    ["orderby=A desc", "orderby"],
    ["select=A", "select"],
    ["expand=B", "expand"],
    ["Top=5", "top"],
    ["skip=5", "skip"],
    ["count=true", "count"],
    ["apply=aggregate($count as N)", "apply"],
    ["compute=A as B", "compute"],
  ])("%s is a system query option without $ (OData 4.01)", (query, key) => {
    expect(Object.keys(parseQueryOptions(new URLSearchParams(query)))).toEqual([key]);
  });

  it.each([
    ["$levels=2", "$levels"],
    ["foo=1", "foo"],
    ["customerId=C1", "customerId"],
    ["_=1699999999", "_"],
    ["filters=A eq 1", "filters"],
    ["$=1", "$"],
  ])("%s is an error naming it", (query, name) => {
    expect(() => parseQueryOptions(new URLSearchParams(query))).toThrow(
      new QuerySyntaxError(
        name,
        0,
        `'${name}' is neither a system query option ($filter, $orderby, $select, $expand, $top, $skip, $count, $apply, $compute, $search) nor a parameter alias (@name)`,
      ),
    );
  });

  it.each([
    ["$filter=A eq 1&filter=A eq 2", "filter", "option 'filter' repeats '$filter'"],
    ["top=1&$TOP=2", "$TOP", "option '$TOP' repeats 'top'"],
    ["select=A&select=B", "select", "option 'select' is repeated"],
  ])("%s: the same option twice is an error", (query, name, problem) => {
    expect(() => parseQueryOptions(new URLSearchParams(query))).toThrow(new QuerySyntaxError(name, 0, problem));
  });

  it.each([
    ["$top= 5", "$top"],
    ["$skip=\t5", "$skip"],
    ["$filter= A eq 1", "$filter"],
    ["$select= A", "$select"],
    ["$orderby= A", "$orderby"],
    ["$expand= A", "$expand"],
    ["$count= true", "$count"],
    ["$apply= aggregate($count as N)", "$apply"],
    ["$compute= A as B", "$compute"],
    ["top= 5", "top"],
    ["@p= 'x'", "@p"],
  ])("%j: a blank after '=' is an error at position 0, not dropped", (query, name) => {
    expect(() => parseQueryOptions(new URLSearchParams(query))).toThrow(
      new QuerySyntaxError(name, 0, "no blank is allowed after '='"),
    );
  });

  it("rejects repeated options, naming them", () => {
    expect(() => parseQueryOptions(new URLSearchParams("$top=1&$top=2"))).toThrow(
      new QuerySyntaxError("$top", 0, "option '$top' is repeated"),
    );
    expect(() => parseQueryOptions(new URLSearchParams("$top=1&$Top=2"))).toThrow(
      new QuerySyntaxError("$Top", 0, "option '$Top' repeats '$top'"),
    );
  });

  it("reports errors in an option with that option's name and offset", () => {
    expect(() => parseQueryOptions({ $filter: "A eq 1", $orderby: "A desc desc" })).toThrow(
      new QuerySyntaxError("$orderby", 7, "expected ',', 'asc', 'desc' or end of input but found 'desc'"),
    );
  });

  it("caps the total length of the query", () => {
    // `$filter=A eq 1&$top=5` is 21 characters
    const limits = { ...defaultQueryLimits, maxQueryLength: 21 };
    expect(() => parseQueryOptions({ $filter: "A eq 1", $top: "5" }, limits)).not.toThrow();
    expect(() => parseQueryOptions({ $filter: "A eq 12", $top: "5" }, limits)).toThrow(
      new QuerySyntaxError("query", 21, "longer than 21 characters"),
    );
    // method parameters count too: the limit is on the whole query string
    expect(() => parseQueryOptions({ $top: "5", note: "x".repeat(20) }, limits, new Set(["note"]))).toThrow(
      "longer than 21",
    );
  });
});
