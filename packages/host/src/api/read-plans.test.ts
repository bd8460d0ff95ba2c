/**
 * What the host's reads visit as a tenant's data grows (PostgreSQL only: plans are its planner's;
 * `pnpm bench` at BENCH_SCALES=1,10 measures the growth). The statements are the ones the host
 * sends, caught on their way to the database, and explained in the tenant's transaction
 * (row-level security on), for a small tenant beside a large one in the same tables.
 *
 * Two reads must grow: a count of all orders counts every one, and a sum over the open orders'
 * lines adds every such line (PostgreSQL keeps no running totals; about tenfold at 10x). What
 * must not grow is the work for other tenants' rows: both are served by tenant-leading indexes
 * (the count by an index-only scan) and scan no table whole.
 *
 * Pages must not grow: a top-N page walks an index in its order and stops after N matches, so it
 * visits about N / (share of rows matching) rows at any size, and sorts nothing.
 */
import { type Database, inTenant, type Session, type SqlQuery, type Statement, toQuery } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext, createApp, createTenant, loadSigningKeys, setUser } from "@bizdata/host";
import { beforeAll, describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
import { type Caller, caller, config, PASSWORD, signIn } from "../../../../test/host-app.js";
import { migrateService } from "../schema.js";

const SMALL = { products: 50, customers: 20, orders: 100, linesPerOrder: 3, invoices: 0, journals: 0 };
const LARGE = { products: 20_000, customers: 20_000, orders: 20_000, linesPerOrder: 3, invoices: 0, journals: 0 };

let db: Database;
let small: Caller;
const tenants = { small: uniqueTenant("plan-s"), large: uniqueTenant("plan-l") };
const caught: SqlQuery[] = [];

/** `db` handing a copy of every statement of a tenant transaction to `caught` */
const catching = (inner: Database): Database => {
  const wrap = (session: Session): Session => ({
    query: <R>(statement: Statement) => {
      caught.push(toQuery(statement));
      return session.query<R>(statement);
    },
    store: session.store,
  });
  return { ...inner, transaction: (fn, options) => inner.transaction((tx) => fn(wrap(tx)), options) };
};

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** the plan of the statement the host sends for `path`, for the small tenant or (the same statement) the large one */
async function planOf(path: string, tenant: "small" | "large" = "small"): Promise<PlanNode[]> {
  caught.length = 0;
  const res = await small.request("GET", path);
  expect(res.status, await res.text()).toBe(200);
  expect(caught).toHaveLength(1);
  const { sql, params } = caught[0]!;
  const tenantId = tenants[tenant];
  const [row] = await inTenant(db, tenantId, (tx) =>
    tx.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({
      sql: `EXPLAIN (FORMAT JSON) ${sql}`,
      params: params.map((p) => (p === tenants.small ? tenantId : p)),
    }),
  );
  return nodes(row!["QUERY PLAN"][0].Plan);
}

/** the scans of `table` in a plan: each an index scan whose condition leads with the tenant */
function expectTenantIndexScans(plan: PlanNode[], table: string, types: readonly string[]) {
  const scans = plan.filter((n) => n["Relation Name"] === table);
  expect(scans.length, JSON.stringify(plan)).toBeGreaterThan(0);
  for (const scan of scans) {
    expect(types, JSON.stringify(scan)).toContain(scan["Node Type"]);
    // a bitmap heap scan rechecks what its bitmap index scan found
    expect(scan["Index Cond"] ?? scan["Recheck Cond"], JSON.stringify(scan)).toMatch(/tenant_id = /);
  }
}

const INDEX_SCANS = ["Index Scan", "Index Only Scan", "Bitmap Heap Scan"];

describe.skipIf(!process.env.DATABASE_URL)("reads and the data they visit", () => {
  beforeAll(async () => {
    db = await testDatabase();
    await migrateService(db, sampleModel);
    for (const [id, sizes] of [
      [tenants.small, SMALL],
      [tenants.large, LARGE],
    ] as const) {
      await createTenant(db, id);
      await seedSampleData(adminContext(db, sampleModel), id, sizes);
    }
    await setUser(db, tenants.small, "admin", PASSWORD, ["admin"]);
    // as a host's database is after autovacuum: statistics, and a visibility map for index-only scans
    await db.query({ sql: "VACUUM (ANALYZE) sales_order, sales_order_detail, product, customer, contact", params: [] });
    const app = createApp({ db: catching(db), model: sampleModel, keys: await loadSigningKeys(db), config });
    small = caller(app, tenants.small, await signIn(app, tenants.small, "admin"));
  }, 300_000);

  it("counts a tenant's orders with an index-only scan of a tenant-leading index", async () => {
    const plan = await planOf("/api/SalesOrder?$count=true&$top=0");
    expectTenantIndexScans(plan, "sales_order", ["Index Only Scan"]);
  });

  it("sums the open orders' lines through tenant-leading indexes, scanning no table whole", async () => {
    const apply = encodeURIComponent("filter(SalesOrder/Status eq 'Open')/aggregate(Quantity with sum as Total)");
    const plan = await planOf(`/api/SalesOrderDetail?$apply=${apply}`);
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    expectTenantIndexScans(plan, "sales_order_detail", INDEX_SCANS);
    expectTenantIndexScans(plan, "sales_order", INDEX_SCANS);
  });

  // top-N pages visit about N / (share of rows that match) rows whatever the size, when an index
  // walks them in order and the filter is checked on the way

  it("pages cheap products by SKU by walking the SKU index in order, sorting only ties", async () => {
    const path = `/api/Product?$select=SKU,SalesDescription,Cost&$filter=${encodeURIComponent("Cost lt 50")}&$orderby=SKU&$top=50`;
    const plan = await planOf(path, "large");
    expect(plan[0]!["Node Type"]).toBe("Limit");
    // an incremental sort orders the rows of one SKU by Guid as they come; a full sort would read them all
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan" || n["Node Type"] === "Sort")).toEqual([]);
    expectTenantIndexScans(plan, "product", ["Index Scan"]);
  });

  it("pages customers through a path filter by walking them in key order, sorting none", async () => {
    const path = `/api/Customer?$filter=${encodeURIComponent("PrimaryContact/MailingAddress/State eq 'TX'")}&$select=Id,Title&$expand=PrimaryContact($select=FirstName,LastName)&$top=50`;
    const plan = await planOf(path, "large");
    expect(plan[0]!["Node Type"]).toBe("Limit");
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan" || n["Node Type"].includes("Sort"))).toEqual([]);
    expectTenantIndexScans(plan, "customer", ["Index Scan"]);
    expectTenantIndexScans(plan, "contact", INDEX_SCANS);
  });
});
