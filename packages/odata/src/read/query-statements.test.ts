/**
 * One statement per read (architecture: one prepared statement per request): the service runs over
 * a database wrapper that records every statement, and each representative read below must cost
 * exactly one, however many options, expanded levels and counts it has. The statement every tenant
 * transaction opens with (role and tenant settings) is not the read's and is left out.
 */

import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { type LoadedFixture, loadFixture } from "@bizdata/test-kit/query-fixture";
import { recording } from "@bizdata/test-kit/recording-database";
import { beforeAll, describe, expect, it } from "vitest";

const log: string[] = [];
let api: ServiceTenant;
let fixture: LoadedFixture;

beforeAll(async () => {
  const db = await testDatabase();
  api = (await serviceHarness({ db: recording(db, log) })).tenant(uniqueTenant("stmts"));
  fixture = await loadFixture(api, db);
});

const reads: [string, (f: LoadedFixture) => string, (body: any) => void][] = [
  [
    "a list with $filter through references, $orderby, $count and a collection expand with nested expands and its own count",
    () =>
      `/api/SalesOrder?${new URLSearchParams({
        $filter:
          "Status ne 'Closed' and SellToCustomer/PrimaryContact/MailingAddress/Country/Code eq 'US' and Details/any(d: d/Product/Cost gt 1)",
        $orderby: "SellToCustomer/Name desc,DocNumber",
        $count: "true",
        $top: "5",
        $compute: "Details/$count as Lines",
        $select: "DocNumber,Lines",
        $expand:
          "Details($filter=Quantity ge 1;$orderby=Quantity desc;$count=true;$top=2;$expand=Product($select=SKU;$expand=Uoms($select=Name))),SellToCustomer($select=Id;$expand=PrimaryContact($select=FullName;$expand=MailingAddress/Country))",
      })}`,
    (body) => {
      expect(body["@odata.count"]).toBe(2);
      expect(body.value.map((o: any) => [o.DocNumber, o.Lines, o["Details@odata.count"]])).toEqual([
        ["SO-002", 2, 2],
        ["SO-001", 3, 3],
      ]);
      expect(body.value[1].SellToCustomer.PrimaryContact.FullName).toBe("Ann Able");
    },
  ],
  [
    "a single record with references and collections expanded",
    (f) =>
      `/api/SalesOrder(${f.guids.SalesOrder!["SO-005"]})?$select=DocNumber&$expand=Details($expand=Product($select=SKU)),SellToCustomer($expand=PrimaryContact($select=FullName)),PriceLevel`,
    (body) => {
      expect(body.DocNumber).toBe("SO-005");
      expect(body.Details).toHaveLength(4);
      expect(body.SellToCustomer.PrimaryContact.FullName).toBe("Cy");
    },
  ],
  [
    "/$count with a filter",
    () => `/api/SalesOrder/$count?$filter=${encodeURIComponent("Details/$count gt 1 and Status eq 'Open'")}`,
    (body) => expect(body).toBe(2),
  ],
  [
    "$apply with filter and groupby through a reference, ordered",
    () =>
      `/api/SalesOrderDetail?$apply=${encodeURIComponent("filter(Quantity gt 0)/groupby((SalesOrder/Status),aggregate(Quantity with sum as Q, $count as N))")}&$orderby=Q%20desc`,
    (body) => expect(body.value[0]).toEqual({ SalesOrder: { Status: "Open" }, Q: 116, N: 5 }),
  ],
  [
    "$apply aggregate only",
    () => `/api/SalesOrder?$apply=${encodeURIComponent("aggregate(TotalPrice with sum as Total, $count as N)")}`,
    (body) => expect(dataOf(body)).toEqual({ value: [{ Total: 584.25, N: 6 }] }),
  ],
  [
    "a navigation to a referenced record, through references, with its own expand",
    (f) =>
      `/api/SalesOrder(Guid=${f.guids.SalesOrder!["SO-001"]})/SellToCustomer/PrimaryContact?$select=FullName&$expand=MailingAddress/Country($select=Code)`,
    (body) => expect(body).toMatchObject({ FullName: "Ann Able", MailingAddress: { Country: { Code: "US" } } }),
  ],
  [
    "a navigation to an owned collection with $filter, $orderby, $top, $count and a nested expand",
    (f) =>
      `/api/SalesOrder(${f.guids.SalesOrder!["SO-005"]})/Details?$filter=Quantity%20gt%201&$orderby=Quantity%20desc&$top=2&$count=true&$select=Quantity&$expand=Product($select=SKU;$expand=Uoms($select=Name))`,
    (body) => {
      expect(body["@odata.count"]).toBe(3);
      expect(body.value.map((d: any) => d.Product.SKU)).toEqual(["WID-002", "GAD-100"]);
    },
  ],
  [
    "a navigation to a complex value through a reference",
    (f) => `/api/Customer(${f.guids.Customer!.C001})/PrimaryContact/MailingAddress`,
    (body) => expect(body).toMatchObject({ City: "Philadelphia" }),
  ],
  [
    "$count of an owned collection",
    (f) => `/api/SalesOrder(${f.guids.SalesOrder!["SO-005"]})/Details/$count`,
    (body) => expect(body).toBe(4),
  ],
  [
    "$search with $filter and $count, and inside a collection expand",
    () =>
      `/api/SalesOrder?$filter=${encodeURIComponent("Details/$count gt 0")}&$count=true&$select=DocNumber&$expand=Details($search=${encodeURIComponent('"blue ones" OR loose')};$count=true)&$top=2&$orderby=DocNumber`,
    (body) => {
      expect(body["@odata.count"]).toBe(4);
      expect(body.value.map((o: any) => o["Details@odata.count"])).toEqual([1, 1]);
    },
  ],
  [
    "$search over products",
    () => `/api/Product?$search=${encodeURIComponent("widget OR bolt")}&$count=true&$select=SKU`,
    (body) => expect(body["@odata.count"]).toBe(3),
  ],
  [
    "a plain list with $top",
    () => `/api/Product?$select=SKU&$orderby=SKU&$top=50`,
    (body) => expect(body.value).toHaveLength(7),
  ],
];

describe("statements per read", () => {
  it.each(reads)("%s: exactly one", async (_, path, check) => {
    log.length = 0;
    const res = await api.call("GET", path(fixture));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    check(JSON.parse(text));
    expect(log, log.join("\n\n")).toHaveLength(1);
  });

  it("counts the statements of a read that follows a write (the wrapper sees every statement)", async () => {
    log.length = 0;
    const res = await api.call("POST", "/api/Country?$select=Code", { body: { Code: "FR", Name: "France" } });
    expect(res.status).toBe(201);
    expect(log.length).toBeGreaterThan(1);
  });
});
