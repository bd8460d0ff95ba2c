/**
 * The reads that must grow with a tenant's data, and why they still read only that tenant's rows
 * (PostgreSQL only: plans are its planner's). A count of all orders counts every one of them, and
 * a sum over the open orders' lines adds every such line: PostgreSQL keeps no running totals, so
 * both grow with the data (`pnpm bench` at BENCH_SCALES=1,10: about tenfold). What must not grow
 * is the work for other tenants' rows: with a small tenant beside a large one in the same tables,
 * the host's statements for both reads are served by tenant-leading indexes (the count by an
 * index-only scan when it can) and scan no table whole. The statements are the ones the host
 * sends, caught on their way to the database, and explained in the tenant's transaction
 * (row-level security on).
 */
import { type Database, inTenant, type Session, type SqlQuery, type Statement, toQuery } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext, createApp, createTenant, loadSigningKeys, setUser } from "@bizdata/host";
import { beforeAll, describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
import { type Caller, caller, config, PASSWORD, signIn } from "../../../../test/host-app.js";
import { migrateService } from "../schema.js";

const SMALL = { products: 50, customers: 20, orders: 100, linesPerOrder: 3, invoices: 0, journals: 0 };
const LARGE = { products: 500, customers: 200, orders: 20_000, linesPerOrder: 3, invoices: 0, journals: 0 };

let db: Database;
let small: Caller;
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
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** the plan of the statement the host sends for `path`, for the small tenant */
async function planOf(path: string): Promise<PlanNode[]> {
  caught.length = 0;
  const res = await small.request("GET", path);
  expect(res.status, await res.text()).toBe(200);
  expect(caught).toHaveLength(1);
  const { sql, params } = caught[0]!;
  const [row] = await inTenant(db, small.tenantId, (tx) =>
    tx.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({ sql: `EXPLAIN (FORMAT JSON) ${sql}`, params }),
  );
  return nodes(row!["QUERY PLAN"][0].Plan);
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
        ? (scan.Plans ?? []).flatMap(nodes).filter((n) => n["Node Type"] === "Bitmap Index Scan")
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
    await migrateService(db, sampleModel);
    const tenants = { small: uniqueTenant("plan-s"), large: uniqueTenant("plan-l") };
    for (const [id, sizes] of [
      [tenants.small, SMALL],
      [tenants.large, LARGE],
    ] as const) {
      await createTenant(db, id);
      await seedSampleData(adminContext(db, sampleModel), id, sizes);
    }
    await setUser(db, tenants.small, "admin", PASSWORD, ["admin"]);
    // as a host's database is after autovacuum: statistics, and a visibility map for index-only scans
    await db.query({ sql: "VACUUM (ANALYZE) sales_order, sales_order_detail", params: [] });
    const app = createApp({ db: catching(db), model: sampleModel, keys: await loadSigningKeys(db), config });
    small = caller(app, tenants.small, await signIn(app, tenants.small, "admin"));
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
});
