/**
 * The SQL a read compiles to, without a database: literals travel only as parameters, the tenant
 * predicate is always there, and to-one paths are plain LEFT JOINs on tenant and Guid, one per
 * distinct path however often it is used.
 */
import {
  collection,
  complex,
  date,
  decimal,
  defineModel,
  entity,
  enumeration,
  integer,
  reference,
  text,
  virtual,
} from "@bizdata/core";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { bindQuery } from "../bind/bind-query.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { compileCollection, compileCount, compileSingle, JOINED_PAGE_MOST } from "./compile-read.js";

const Country = entity("Country", { naturalKey: "Code", fields: { Code: text({ required: true }), Name: text() } });
const Contact = entity("Contact", {
  naturalKey: "Email",
  fields: {
    Email: text(),
    FirstName: text(),
    LastName: text(),
    Address: complex({ City: text(), State: text(), Country: reference("Country") }),
  },
  virtuals: {
    FullName: virtual(text(), {
      dependsOn: ["FirstName", "LastName"],
      compute: (c: { FirstName: string | null; LastName: string | null }) => `${c.FirstName} ${c.LastName}`,
    }),
  },
});
const Customer = entity("Customer", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Name: text(), Limit: decimal(), Contact: reference("Contact") },
});
const OrderLine = entity("OrderLine", {
  naturalKey: "Guid",
  fields: {
    Order: reference("Order", { required: true }),
    LineNo: integer(),
    Item: text(),
    Qty: decimal({ required: true }),
    Price: decimal(),
  },
});
const Order = entity("Order", {
  naturalKey: "No",
  fields: {
    No: text({ required: true }),
    Placed: date(),
    State: enumeration(["Open", "Done"]),
    Customer: reference("Customer"),
    Lines: collection(OrderLine, { inverse: "Order" }),
  },
});
const model = defineModel([Country, Contact, Customer, OrderLine, Order]);

const dialect = new PgDialect();
const ctx = { tenantId: "t1", pageSize: 100, ieee754Compatible: false };

function compile(entityName: string, options: Record<string, string>) {
  const query = bindQuery(model, model.entity(entityName)!, parseQueryOptions(options));
  return dialect.sqlToQuery(compileCollection(query, ctx).statement);
}

/** the parameter a `$n` placeholder stands for */
const param = (q: { params: readonly unknown[] }, placeholder: string) => q.params[Number(placeholder.slice(1)) - 1];

/** every `<alias>.tenant_id = $n` comparison with a parameter, as [alias, value] */
const tenantParams = (q: { sql: string; params: readonly unknown[] }) =>
  [...q.sql.matchAll(/"(t\d+)"\."tenant_id" = (\$\d+)/g)].map((m) => [m[1], param(q, m[2]!)]);

const joins = (sql: string) => [
  ...sql.matchAll(/LEFT JOIN "(\w+)" AS "(t\d+)" ON ([^)]*?)(?= LEFT JOIN| WHERE|\)|$)/g),
];

describe("literals", () => {
  it("sends every literal of every option as a parameter, never as statement text", () => {
    const literals = {
      string: "needle-7f3a",
      escaped: "O'Hara-7f3a",
      percent: "50%_off-7f3a",
      integer: "424242",
      decimal: "98765.4321",
      date: "2031-04-05",
      guid: "0b8e1c7a-3f4d-4e5a-9b6c-7d8e9f0a1b2c",
      instant: "2032-06-07T08:09:10Z",
      inList: "in-list-7f3a",
      lambda: "lambda-7f3a",
      compute: "compute-7f3a",
      order: "order-7f3a",
      expand: "expand-7f3a",
      deep: "deep-7f3a",
    };
    const q = compile("Order", {
      $filter: [
        `No eq '${literals.string}'`,
        `Customer/Name ne 'O''Hara-7f3a'`,
        `contains(No,'${literals.percent}')`,
        `Lines/$count lt ${literals.integer}`,
        `Customer/Limit ge ${literals.decimal}`,
        `Placed le ${literals.date}`,
        `Customer ne ${literals.guid}`,
        `hour(${literals.instant}) eq 8`,
        `No in ('${literals.inList}', 'x')`,
        `Lines/any(l: l/Item eq '${literals.lambda}' and l/Qty mul 3 gt 1)`,
        `State eq 'Open'`,
      ].join(" and "),
      $compute: `concat(No,'${literals.compute}') as Tagged`,
      $orderby: `indexof(No,'${literals.order}') desc`,
      $select: "No,Tagged",
      $expand: `Lines($filter=Item ne '${literals.expand}';$top=3;$skip=2;$expand=Order($select=No;$expand=Customer($compute=concat(Name,'${literals.deep}') as N;$select=N)))`,
      $top: "7",
      $skip: "11",
    });
    for (const text of Object.values(literals)) expect(q.sql).not.toContain(text);
    expect(q.sql).not.toContain("O''Hara");
    expect(q.sql).not.toContain("'Open'");
    expect(q.params).toEqual(
      expect.arrayContaining([
        literals.string,
        literals.escaped,
        literals.percent,
        literals.integer,
        literals.decimal,
        literals.date,
        literals.guid,
        literals.instant,
        literals.inList,
        literals.lambda,
        literals.compute,
        literals.order,
        literals.expand,
        literals.deep,
        "Open",
        "t1",
        7,
        11,
        3,
        2,
      ]),
    );
    // the only quoted strings in the text are the fixed parts of the JSON it builds (a member's
    // name, brackets, quotes, separators, null) and fixed SQL
    for (const [quoted] of q.sql.matchAll(/'[^']*'/g))
      expect(quoted).toMatch(/^'([{,]"[A-Za-z_@][A-Za-z0-9_@.]*":|\[\]|[[\]{}",]|\{\}|null|UTC|)'$/);
  });

  it("casts each parameter to the type of its literal", () => {
    const q = compile("Order", { $filter: "Lines/any(l: l/Qty gt 2.5 and l/LineNo eq 3) and Placed eq 2024-01-02" });
    expect(q.sql).toMatch(/\$\d+::numeric/);
    expect(q.sql).toMatch(/\$\d+::int8/);
    expect(q.sql).toMatch(/\$\d+::date/);
  });
});

describe("expanded collections", () => {
  it("are the array of their items' texts in the order and page of the items' own query, with no aggregate sorting them again", () => {
    const { sql } = compile("Order", { $expand: "Lines($orderby=Item desc;$top=3;$skip=2)" });
    expect(sql).toMatch(
      /\('\[' \|\| array_to_string\(ARRAY\(SELECT .* ORDER BY "t1"\."item" DESC NULLS LAST, "t1"\.guid LIMIT \$\d+ OFFSET \$\d+\), ','\) \|\| '\]'\)/,
    );
    // an aggregate ordered in itself sorts once per owner (json-object.ts collectionJson)
    expect(sql).not.toMatch(/string_agg\([^)]* ORDER BY/);
    expect(compile("Order", { $expand: "Lines" }).sql).toMatch(/ARRAY\(SELECT .* ORDER BY "t1"\.guid\)/);
  });
});

describe("a page of plain records", () => {
  const joined = /array_to_string\(ARRAY\(SELECT /;
  it("is one row of the records' texts joined, with whether more were found when the server page cut it", () => {
    expect(compile("Order", { $top: "10" }).sql).toMatch(joined);
    const paged = compile("Order", {});
    expect(paged.sql).toMatch(
      /array_to_string\(p\.a\[:\$\d+\], ','\) AS "\$page", cardinality\(p\.a\) > \$\d+ AS "\$more"/,
    );
    expect(paged.params).toContain(ctx.pageSize);
  });

  it("is a row per record without a bound or over JOINED_PAGE_MOST records, so that no value holds all of it", () => {
    const unpaged = bindQuery(model, model.entity("Order")!, parseQueryOptions({ $select: "No" }));
    expect(
      dialect.sqlToQuery(compileCollection(unpaged, { tenantId: ctx.tenantId, ieee754Compatible: false }).statement)
        .sql,
    ).not.toMatch(joined);
    const large = { ...ctx, pageSize: JOINED_PAGE_MOST + 1 };
    expect(dialect.sqlToQuery(compileCollection(unpaged, large).statement).sql).not.toMatch(joined);
    const top = bindQuery(model, model.entity("Order")!, parseQueryOptions({ $top: String(JOINED_PAGE_MOST) }));
    expect(dialect.sqlToQuery(compileCollection(top, large).statement).sql).toMatch(joined);
  });
});

describe("tenant predicate", () => {
  it("filters the read's table and every correlated subquery by tenant", () => {
    const q = compile("Order", {
      $filter: "Lines/any(l: l/Qty gt 1)",
      $expand: "Lines($count=true)",
      $count: "true",
    });
    const top = tenantParams(q);
    expect(top.length).toBeGreaterThan(0);
    expect(top.every(([, value]) => value === "t1")).toBe(true);
    // the outer FROM and the count's FROM are each tied to the tenant parameter
    expect(new Set(top.map(([alias]) => alias)).size).toBe(2);
    // the subqueries over the lines match their owner's tenant (and so the tenant's index)
    const correlated = [...q.sql.matchAll(/"(t\d+)"\."tenant_id" = "(t\d+)"\."tenant_id"/g)];
    expect(correlated.length).toBeGreaterThanOrEqual(3);
  });

  it("is present in single reads and counts too", () => {
    const query = bindQuery(model, Order, parseQueryOptions({ $filter: "No eq 'x'" }));
    for (const statement of [
      compileSingle(query, "0b8e1c7a-3f4d-4e5a-9b6c-7d8e9f0a1b2c", ctx).statement,
      compileCount(query, ctx),
    ]) {
      const q = dialect.sqlToQuery(statement);
      expect(tenantParams(q)).toEqual([["t0", "t1"]]);
      expect(q.sql).toMatch(/WHERE "t0"\."tenant_id" = \$\d+ AND/);
    }
  });
});

describe("to-one paths", () => {
  it("become LEFT JOINs on tenant and Guid, never LATERAL", () => {
    const q = compile("Order", {
      $filter: "Customer/Contact/Address/Country/Code eq 'US'",
      $orderby: "Customer/Contact/LastName",
      $expand: "Customer($select=Name;$expand=Contact($select=FullName))",
    });
    expect(q.sql).not.toMatch(/LATERAL/i);
    const found = joins(q.sql);
    expect(found.map((m) => m[1])).toEqual(["customer", "contact", "country"]);
    for (const [, , alias, on] of found) {
      expect(on).toMatch(
        new RegExp(
          `^"${alias}"\\."tenant_id" = "t\\d+"\\."tenant_id" AND "${alias}"\\.(guid|"guid") = "t\\d+"\\."\\w+_guid"$`,
        ),
      );
    }
    // the chain: order.customer_guid → customer.contact_guid → contact.address__country_guid
    expect(found[0]![3]).toContain(`"t0"."customer_guid"`);
    expect(found[1]![3]).toContain(`"${found[0]![2]}"."contact_guid"`);
    expect(found[2]![3]).toContain(`"${found[1]![2]}"."address__country_guid"`);
  });

  it("share one join per path, however many options walk it", () => {
    const q = compile("Order", {
      $filter: "Customer/Name eq 'a' and Customer/Limit gt 5 and Customer/Contact/Email ne null",
      $orderby: "Customer/Name,Customer/Contact/Email desc",
      $compute: "concat(Customer/Name,'!') as Shout",
      $select: "Shout,Customer",
      $expand: "Customer($select=Code;$expand=Contact)",
    });
    expect(joins(q.sql).map((m) => m[1])).toEqual(["customer", "contact"]);
    expect(q.sql.match(/JOIN "customer"/g)).toHaveLength(1);
    expect(q.sql.match(/JOIN "contact"/g)).toHaveLength(1);
  });

  it("inside a collection, joins within the collection's subquery", () => {
    const q = compile("Order", {
      $expand: "Lines($filter=Order/Customer/Name eq 'a';$orderby=Order/Customer/Name)",
    });
    expect(q.sql).not.toMatch(/LATERAL/i);
    expect(joins(q.sql).map((m) => m[1])).toEqual(["order", "customer"]);
  });

  it("uses LATERAL only to pair $count with a page of a row per record", () => {
    expect(compile("Order", { $filter: "Customer/Name eq 'a'" }).sql).not.toMatch(/LATERAL/i);
    // a page of plain records is one row, its count a column beside the records
    expect(compile("Order", { $filter: "Customer/Name eq 'a'", $count: "true" }).sql).not.toMatch(/LATERAL/i);
    expect(compile("Order", { $filter: "Customer/Name eq 'a'", $count: "true", $expand: "Lines" }).sql).toMatch(
      /LEFT JOIN LATERAL \(SELECT /,
    );
  });
});
