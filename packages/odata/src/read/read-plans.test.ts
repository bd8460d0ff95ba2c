/**
 * How reads grow with a tenant's data (PostgreSQL only: plans are its planner's). The statements
 * are the ones the service sends, caught on their way to the database, and explained in the
 * tenant's transaction (row-level security on), for a small tenant beside a large one in the same
 * tables.
 *
 * Reads that must grow: a count of all orders counts every one of them, and a sum over the open
 * orders' lines adds every such line. PostgreSQL keeps no running totals, so both grow with the
 * data (`pnpm bench` at BENCH_SCALES=1,10: about tenfold). What must not grow is the work for other
 * tenants' rows: the service's statements for both reads are served by tenant-leading indexes (the
 * count by an index-only scan when it can) and scan no table whole.
 *
 * A read that must not grow: a page of customers filtered on their contact's state, with the
 * contact expanded. For a large tenant the page is read in key order and each customer's contact
 * probed by its key until the page is full, so its work is set by the page and the filter's
 * selectivity, not by how many customers there are. A small tenant's customers are few enough
 * that joining all of them costs less; `pnpm bench` sees that as growth from 1x to 10x, and none
 * after it (README, Benchmarks).
 */
import type { Database, SqlQuery } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
// the host's bulk loader, to seed a large tenant in seconds (what is tested is the service's reads)
import { adminContext } from "@bizdata/host";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { type PlanNode, planNodes, tenantPlan, watched } from "@bizdata/test-kit/query-plans";
import { beforeAll, describe, expect, it } from "vitest";

const SMALL = { products: 50, customers: 20, orders: 100, linesPerOrder: 3, invoices: 0, journals: 0 };
// customers enough for the planner to page through them rather than join them all (with the
// sample's share of contacts in Texas, one in twelve: at 2,000 it joins them all)
const LARGE = { products: 500, customers: 20_000, orders: 20_000, linesPerOrder: 3, invoices: 0, journals: 0 };

let db: Database;
let small: ServiceTenant;
let large: ServiceTenant;
const caught: SqlQuery[] = [];

/** the plan of the statement the service sends for `path`, for the small tenant unless told */
async function planOf(path: string, tenant: ServiceTenant = small): Promise<PlanNode[]> {
  caught.length = 0;
  const res = await tenant.call("GET", path);
  expect(res.status, await res.text()).toBe(200);
  expect(caught).toHaveLength(1);
  return tenantPlan(db, tenant.tenantId, caught[0]!);
}

/**
 * The scans of `table` in a plan: each an index scan whose condition leads with the tenant. A
 * bitmap heap scan reads the table through the bitmap index scans below it, which carry the
 * index conditions.
 */
function expectTenantIndexScans(plan: PlanNode[], table: string, types: readonly string[]) {
  const scans = plan.filter((n) => n["Relation Name"] === table);
  expect(scans.length, JSON.stringify(plan)).toBeGreaterThan(0);
  for (const scan of scans) {
    const indexScans =
      scan["Node Type"] === "Bitmap Heap Scan"
        ? (scan.Plans ?? []).flatMap(planNodes).filter((n) => n["Node Type"] === "Bitmap Index Scan")
        : [scan];
    expect(indexScans.length, JSON.stringify(scan)).toBeGreaterThan(0);
    for (const index of indexScans) {
      expect(types, JSON.stringify(scan)).toContain(index["Node Type"]);
      expect(index["Index Cond"], JSON.stringify(scan)).toMatch(/tenant_id = /);
    }
  }
}

const INDEX_SCANS = ["Index Scan", "Index Only Scan", "Bitmap Index Scan"];

describe.skipIf(!process.env.DATABASE_URL)("the reads that grow with the data", () => {
  beforeAll(async () => {
    db = await testDatabase();
    const harness = await serviceHarness({ db: watched(db, caught) });
    const tenants = { small: uniqueTenant("plan-s"), large: uniqueTenant("plan-l") };
    for (const [id, sizes] of [
      [tenants.small, SMALL],
      [tenants.large, LARGE],
    ] as const) {
      await seedSampleData(adminContext(db, sampleModel), id, sizes);
    }
    // as a host's database is after autovacuum: statistics, and a visibility map for index-only scans
    await db.query({ sql: "VACUUM (ANALYZE) sales_order, sales_order_detail, customer, contact", params: [] });
    small = harness.tenant(tenants.small);
    large = harness.tenant(tenants.large);
  }, 300_000);

  // an index-only scan where the visibility map says the pages are all visible; the test files that
  // write to the same tables at the same time leave some that are not, and the planner may then
  // take the index and the table: either way no other tenant's row is visited
  it("counts a tenant's orders through a tenant-leading index", async () => {
    const plan = await planOf("/api/SalesOrder?$count=true&$top=0");
    expectTenantIndexScans(plan, "sales_order", INDEX_SCANS);
  });

  it("sums the open orders' lines through tenant-leading indexes, scanning no table whole", async () => {
    const apply = encodeURIComponent("filter(SalesOrder/Status eq 'Open')/aggregate(Quantity with sum as Total)");
    const plan = await planOf(`/api/SalesOrderDetail?$apply=${apply}`);
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    expectTenantIndexScans(plan, "sales_order_detail", INDEX_SCANS);
    expectTenantIndexScans(plan, "sales_order", INDEX_SCANS);
  });

  const customersInTexas = `/api/Customer?${new URLSearchParams({
    $filter: "PrimaryContact/MailingAddress/State eq 'TX'",
    $select: "Id,Title",
    $expand: "PrimaryContact($select=FirstName,LastName)",
    $top: "50",
  })}`;

  it("filters a small tenant's customers on their contact's state through tenant-leading indexes", async () => {
    const plan = await planOf(customersInTexas);
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    expectTenantIndexScans(plan, "customer", INDEX_SCANS);
    expectTenantIndexScans(plan, "contact", INDEX_SCANS);
  });

  it("pages a large tenant's customers filtered on their contact's state in key order, stopping at a full page", async () => {
    const plan = await planOf(customersInTexas, large);
    const described = JSON.stringify(plan);
    // no sort and no hash: nothing reads all the tenant's customers or contacts in Texas first
    expect(plan[0]!["Node Type"], described).toBe("Limit");
    expect(plan.filter((n) => ["Sort", "Incremental Sort", "Hash", "Seq Scan"].includes(n["Node Type"]))).toEqual([]);
    const customers = plan.filter((n) => n["Relation Name"] === "customer");
    expect(
      customers.map((n) => [n["Node Type"], n["Index Name"]]),
      described,
    ).toEqual([["Index Scan", "customer_pkey"]]);
    const contacts = plan.filter((n) => n["Relation Name"] === "contact");
    expect(
      contacts.map((n) => [n["Node Type"], n["Index Name"]]),
      described,
    ).toEqual([["Index Scan", "contact_pkey"]]);
    expectTenantIndexScans(plan, "customer", ["Index Scan"]);
    expectTenantIndexScans(plan, "contact", ["Index Scan"]);
  });
});
