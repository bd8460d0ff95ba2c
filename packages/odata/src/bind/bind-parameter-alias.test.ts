/**
 * Parameter aliases bound and compiled: a value from the URL reads as the literal it is written
 * as; a typed value from server code takes the type of what it is compared with; both reach the
 * statement only as parameters; an alias with no value is a 400 naming it.
 */
import {
  collection,
  date,
  datetime,
  decimal,
  defineModel,
  entity,
  integer,
  reference,
  ServiceError,
  text,
} from "@bizdata/core";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { compileCollection } from "../compile/compile-read.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { bindApply } from "./bind-apply.js";
import { bindQuery } from "./bind-query.js";

const Line = entity("Line", {
  naturalKey: "Guid",
  fields: { Order: reference("Order", { required: true }), Qty: integer(), Item: text() },
});
const Order = entity("Order", {
  naturalKey: "No",
  fields: {
    No: text({ required: true }),
    Amount: decimal(),
    Placed: date(),
    Changed: datetime(),
    Owner: reference("Order"),
    Lines: collection(Line, { inverse: "Order" }),
  },
});
const model = defineModel([Line, Order]);
const dialect = new PgDialect();

function compile(query: string, aliases?: ReadonlyMap<string, unknown>) {
  const options = parseQueryOptions(new URLSearchParams(query));
  const bound = bindQuery(model, model.entity("Order")!, options, aliases ? { aliases } : {});
  return dialect.sqlToQuery(
    compileCollection(bound, { tenantId: "t1", pageSize: 100, ieee754Compatible: false }).statement,
  );
}

/** the statement text of the filter, from WHERE on, with `$n` replaced by `[param]` */
function where(query: string, aliases?: ReadonlyMap<string, unknown>): string {
  const q = compile(query, aliases);
  const text = q.sql.slice(q.sql.indexOf(" WHERE ") + 7, q.sql.indexOf(" ORDER BY"));
  return text.replace(/\$(\d+)/g, (_, n: string) => `[${JSON.stringify(q.params[Number(n) - 1])}]`);
}

const bindError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    const { status, code, message, target } = error as ServiceError;
    return { status, code, message, target };
  }
  throw new Error("expected a ServiceError");
};

describe("aliases given in the URL", () => {
  it.each([
    ["$filter=No eq @p&@p='SO-1'", `"t0"."no" = ["SO-1"]::text`],
    ["$filter=@p eq No&@p='SO-1'", `["SO-1"]::text = "t0"."no"`],
    ["$filter=Amount gt @p&@p=2.5", `"t0"."amount" > ["2.5"]::numeric`],
    ["$filter=Placed ge @p&@p=2024-01-31", `"t0"."placed" >= ["2024-01-31"]::date`],
    ["$filter=No eq @p&@p=null", `"t0"."no" IS NULL`],
    // a string that is a Guid, compared with a reference, is a Guid (as when written inline)
    [
      "$filter=Owner eq @p&@p='6F1D2B3C-0000-4000-8000-000000000001'",
      `"t0"."owner_guid" = ["6f1d2b3c-0000-4000-8000-000000000001"]::uuid`,
    ],
    ["$filter=No in (@a,'x',@b)&@a='a'&@b='b'", `"t0"."no" IN (["a"]::text, ["x"]::text, ["b"]::text)`],
    ['$filter=No in @l&@l=["a","b"]', `"t0"."no" IN (["a"]::text, ["b"]::text)`],
    ["$filter=Amount in @l&@l=[1, 2.5]", `"t0"."amount" IN (["1"]::int8, ["2.5"]::numeric)`],
    ["$filter=contains(No,@p)&@p='%_'", `(strpos("t0"."no", ["%_"]::text) > 0)`],
  ])("%s", (query, expected) => {
    expect(where(query)).toContain(expected);
  });

  it("reach nested $expand options and $apply", () => {
    expect(compile("$expand=Lines($filter=Qty gt @min)&@min=3").params).toContain("3");
    const options = parseQueryOptions(new URLSearchParams("$apply=filter(Amount gt @p)/aggregate($count as N)&@p=5"));
    expect(bindApply(model, model.entity("Order")!, options).where).toMatchObject({
      right: { kind: "literal", type: "integer", value: "5" },
    });
  });
});

describe("typed values from server code", () => {
  const at = new Date("2024-03-04T05:06:07.000Z");
  it.each<[string, unknown, string]>([
    ["No eq @p", "SO-1", `"t0"."no" = ["SO-1"]::text`],
    ["No eq @p", "it's; DROP TABLE x", `"t0"."no" = ["it's; DROP TABLE x"]::text`],
    ["Amount gt @p", 12, `"t0"."amount" > ["12"]::numeric`],
    ["Amount gt @p", "12.50", `"t0"."amount" > ["12.50"]::numeric`],
    ["Amount gt @p", BigInt(10), `"t0"."amount" > ["10"]::numeric`],
    ["@p lt Amount", 1.5, `["1.5"]::numeric < "t0"."amount"`],
    ["Placed eq @p", at, `"t0"."placed" = ["2024-03-04"]::date`],
    ["Placed eq @p", "2024-03-04", `"t0"."placed" = ["2024-03-04"]::date`],
    ["Changed lt @p", at, `"t0"."changed" < ["2024-03-04T05:06:07.000Z"]::timestamptz`],
    ["Owner eq @p", "6F1D2B3C-0000-4000-8000-000000000001", `["6f1d2b3c-0000-4000-8000-000000000001"]::uuid`],
    ["No eq @p", null, `"t0"."no" IS NULL`],
    ["No in @p", ["a", "b"], `"t0"."no" IN (["a"]::text, ["b"]::text)`],
    ["Lines/any(l: l/Qty ge @p)", 2, `"qty" >= ["2"]::int8`],
    ["length(No) eq @p", 4, `char_length("t0"."no") = ["4"]::int8`],
    ["contains(No, @p)", "x", `(strpos("t0"."no", ["x"]::text) > 0)`],
  ])("%s with %s", (filter, value, expected) => {
    const sql = where(`$filter=${encodeURIComponent(filter)}`, new Map([["p", value]]));
    expect(sql).toContain(expected);
    expect(compile(`$filter=${encodeURIComponent(filter)}`, new Map([["p", value]])).sql).not.toContain("DROP");
  });

  it("win over the URL's value of the same name", () => {
    expect(where("$filter=No eq @p&@p='from-url'", new Map([["p", "from-server"]]))).toContain(`["from-server"]`);
  });

  it.each<[string, unknown, string]>([
    ["Amount gt @p", "ten", `the parameter alias @p holds 'ten', which is not a decimal value (in $filter)`],
    ["Amount gt @p", Number.NaN, `the parameter alias @p holds a number, which is not a decimal value (in $filter)`],
    ["No eq @p", 5, `the parameter alias @p holds a number, which is not a string value (in $filter)`],
    ["Placed eq @p", "March", `the parameter alias @p holds 'March', which is not a date value (in $filter)`],
    ["Owner eq @p", "x", `the parameter alias @p holds 'x', which is not a guid value (in $filter)`],
    ["No in @p", "a", `@p must hold an array to be the list of 'in' (in $filter)`],
    [
      "contains(No,@p)",
      { a: 1 },
      `the parameter alias @p holds a object, which is not a value an expression can use (in $filter)`,
    ],
  ])("%s with %s → 400", (filter, value, message) => {
    expect(bindError(() => compile(`$filter=${encodeURIComponent(filter)}`, new Map([["p", value]])))).toEqual({
      status: 400,
      code: "InvalidExpression",
      message,
      target: "$filter",
    });
  });
});

describe("an alias with no value", () => {
  it.each([
    ["$filter=No eq @p", "$filter"],
    ["$filter=No eq @p&@q='x'", "$filter"],
    ["$orderby=Amount add @p", "$orderby"],
    ["$expand=Lines($filter=Qty gt @p)", "$expand(Lines)/$filter"],
  ])("%s → 400 naming it", (query, option) => {
    expect(bindError(() => compile(query))).toEqual({
      status: 400,
      code: "MissingParameter",
      message: `The parameter alias @p (in ${option}) has no value; give it one in the query, e.g. @p='text'.`,
      target: "@p",
    });
  });

  it.each([
    ["$filter=No eq @p&@p=[1]", "@p holds JSON, which can only be the list of 'in' (X in @p) (in $filter)"],
    ["$filter=No in @p&@p='x'", "@p must hold an array to be the list of 'in' (in $filter)"],
    ["$filter=No in @p&@p=[[1]]", "the list in @p holds strings, numbers, booleans or null only (in $filter)"],
    ["$filter=No in @p&@p=[1]", `"@p" (integer) cannot be compared with "No" (in $filter)`],
  ])("%s → 400", (query, message) => {
    expect(bindError(() => compile(query))).toMatchObject({ status: 400, code: "InvalidExpression", message });
  });
});
