/**
 * Which compiled reads ask to be planned for their values (plan-for-values.ts), and which may run
 * on a plan PostgreSQL caches: those that reach their records by key on the base tables, without
 * a filter or a search at any level. How PostgreSQL then plans them is tested on PostgreSQL
 * (read-plan-caching.test.ts).
 */
import { stagedStore } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { describe, expect, it } from "vitest";
import { ReadPlanner } from "./read-planner.js";

const ORDER = "SalesOrder(6f1d2b3c-0000-4000-8000-000000000001)";
const LINE = "6f1d2b3c-0000-4000-8000-000000000002";

/** what each statement of the read of `path?search` asks: the owners' checks first, then the read */
function asked(path: string, search = "", options: { staged?: boolean; keys?: boolean } = {}) {
  const read = new ReadPlanner(sampleModel).plan({
    path,
    search: new URLSearchParams(search),
    ieee754Compatible: false,
    ...(options.staged && { store: stagedStore(crypto.randomUUID()) }),
    ...(options.keys && { keys: true }),
  });
  if (read.kind === "method") throw new Error(`${path} is a method`);
  return [...(read.owners ?? []).map((o) => o.prepared.planForValues), read.prepared.planForValues];
}

describe("a compiled read", () => {
  it.each<[string, string, string, boolean[]]>([
    ["a record by key", "Product(6f1d2b3c-0000-4000-8000-000000000003)", "$select=SKU,Cost", [false]],
    ["with a to-one expand", ORDER, "$select=DocNumber&$expand=SellToCustomer($select=Id)", [false]],
    ["with an owned collection, ordered and paged", ORDER, "$expand=Details($orderby=LineNumber;$top=5)", [false]],
    ["with a nested expand", ORDER, "$expand=Details($expand=Product($select=SKU))", [false]],
    ["with $compute", ORDER, "$compute=TotalPrice mul 2 as Twice&$select=Twice", [false]],
    ["a related record", `${ORDER}/SellToCustomer`, "$select=Id", [false]],
    ["a complex value", "Contact(6f1d2b3c-0000-4000-8000-000000000004)/MailingAddress", "", [false]],
    ["an owned collection", `${ORDER}/Details`, "$top=10", [false]],
    ["an owned collection's count", `${ORDER}/Details/$count`, "", [false]],
    ["an owned item, its owner checked first", `${ORDER}/Details(${LINE})`, "$select=Quantity", [false, false]],
  ])("may run on a cached plan: %s", (_, path, search, expected) => {
    expect(asked(path, search)).toEqual(expected);
  });

  it.each<[string, string, string, boolean[]]>([
    ["a page", "Product", "$select=SKU&$top=10", [true]],
    ["a filtered page", "Product", "$filter=Cost lt 50&$orderby=SKU&$top=100", [true]],
    [
      "a path filter",
      "Customer",
      "$filter=PrimaryContact/MailingAddress/State eq 'TX'&$expand=PrimaryContact($select=FirstName)&$top=50",
      [true],
    ],
    ["a search", "Customer", "$search=acme", [true]],
    ["an aggregate", "SalesOrderDetail", "$apply=aggregate(Quantity with sum as Total)", [true]],
    ["a count", "SalesOrder/$count", "", [true]],
    ["a record by key with a filtered expand", ORDER, "$expand=Details($filter=Quantity gt 5)", [true]],
    ["a record by key with a searched expand", ORDER, "$expand=Details($search=bolt)", [true]],
    ["an owned collection filtered", `${ORDER}/Details`, "$filter=Quantity gt 5", [true]],
    ["an owned collection's filtered count", `${ORDER}/Details/$count`, "$filter=Quantity gt 5", [true]],
  ])("is planned for its values: %s", (_, path, search, expected) => {
    expect(asked(path, search)).toEqual(expected);
  });

  it("is planned for its values over a workflow's staged rows, whose number is the workflow's", () => {
    expect(asked("Product(6f1d2b3c-0000-4000-8000-000000000003)", "$select=SKU", { staged: true })).toEqual([true]);
    expect(asked(`${ORDER}/Details(${LINE})`, "", { staged: true })).toEqual([true, true]);
  });

  it("may run on a cached plan when restricted to given Guids (a method's result), unless filtered", () => {
    expect(asked("Product", "$select=SKU", { keys: true })).toEqual([false]);
    expect(asked("Product", "$filter=Cost lt 50", { keys: true })).toEqual([true]);
  });
});
