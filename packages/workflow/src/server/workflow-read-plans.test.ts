/**
 * How a workflow step's reads are planned (PostgreSQL only: plans are its planner's).
 *
 * A step runs in a writing transaction (it locks the workflow and moves its index), on the write
 * sessions, which leave cached plans to PostgreSQL for the foreign-key checks' sake. A step's GET
 * must still be planned for its values at every run: after five runs PostgreSQL may switch a
 * prepared statement to a generic plan (2.3x slower for a nested expand in a workflow at the
 * bench's data). PGlite sends every statement unnamed, planned for its values anyway. The
 * services' database has one connection per pool, so the prepared statements looked at after the
 * steps are the ones the steps ran on.
 *
 * A step reads the workflow's staged rows laid over the base rows (staged-view.ts); a record
 * reached by a to-one expand or path is looked up in that overlay by its key, not found by reading
 * all of the target's rows.
 */
import { type Database, inTenant, openDatabase, type SqlQuery, toQuery, watchStatements } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext } from "@bizdata/host";
import { tenantPlan } from "@bizdata/test-kit/query-plans";
import { type Answer, type Client, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const onPostgres = Boolean(process.env.DATABASE_URL);
// products enough that reading all of them costs more than probing a few by key
const SIZES = { products: 5000, customers: 60, orders: 40, linesPerOrder: 3, invoices: 0, journals: 0 };

let db: Database | undefined;
let admin: Client;
const caught: SqlQuery[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openDatabase({ url: process.env.DATABASE_URL!, max: 1 });
  // every statement the services send caught on its way to the database
  const harness = await workflowHarness({
    db: watchStatements(db, (statements) => caught.push(...statements.map(toQuery))),
  });
  const tenantId = await harness.tenant("wf-plan");
  await seedSampleData(adminContext(db, sampleModel), tenantId, SIZES);
  await db.query({ sql: "ANALYZE product, sales_order_detail", params: [] });
  admin = harness.as(tenantId, "admin");
}, 120_000);
afterAll(() => db?.close());

/** the plan of a statement the services sent, explained in the tenant's transaction (row-level security on) */
const planOf = (statement: SqlQuery) => tenantPlan(db!, admin.tenantId, statement);

/** a new workflow of the admin's */
async function newWorkflow(): Promise<string> {
  return (await admin.create()).body.workflowId as string;
}

/** step `index` of `workflowId`: GET `path` */
const step = (workflowId: string, index: number, path: string) =>
  admin.step({ workflowId, index: String(index) }, "GET", path);

/** a new workflow's first step: GET `path`, its statements caught */
async function firstStep(path: string): Promise<Answer> {
  const workflowId = await newWorkflow();
  caught.length = 0;
  return step(workflowId, 1, path);
}

describe.runIf(onPostgres)("a workflow step's read", () => {
  it("is planned for the values of each run, however often the step is repeated", async () => {
    const workflowId = await newWorkflow();
    const customersInTexas = `/api/Customer?${new URLSearchParams({
      $filter: "PrimaryContact/MailingAddress/State eq 'TX'",
      $select: "Id,Title",
      $expand: "PrimaryContact($select=FirstName,LastName)",
    })}`;
    const answers = [];
    for (let index = 1; index <= 8; index++) {
      const res = await step(workflowId, index, customersInTexas);
      expect(res.status, res.text).toBe(200);
      answers.push((res.body as { value: unknown[] }).value);
    }
    // the same answer every time, and not an empty one
    expect(answers[0]!.length).toBeGreaterThan(0);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    const [{ plans, prepared }] = (await inTenant(db!, admin.tenantId, (tx) =>
      tx.query<{ plans: { generic: number; custom: number }[] | null; prepared: number }>({
        sql: `SELECT (SELECT json_agg(json_build_object('generic', generic_plans, 'custom', custom_plans))
                      FROM pg_prepared_statements WHERE statement LIKE '%mailing_address%') AS plans,
                     (SELECT count(*)::int FROM pg_prepared_statements) AS prepared`,
        params: [],
      }),
    )) as [{ plans: { generic: number; custom: number }[] | null; prepared: number }];
    // in session mode the step's read is prepared, and planned anew at every run; in transaction
    // mode (behind a pooler) nothing is prepared at all, every statement unnamed and planned for its values
    if (prepared === 0) expect(plans).toBeNull();
    else expect(plans).toEqual([{ generic: 0, custom: 8 }]);
  });

  // the expanded entity's staged overlay is joined to each line by key: a base row is probed
  // through the primary key (and checked against the staged rows), where an overlay that hid
  // the staged base rows by an anti join read every product of the tenant for each page
  it("probes an expanded record by its key, without reading the whole table behind it", async () => {
    const res = await firstStep("/api/SalesOrderDetail?$top=10&$expand=Product($select=SKU)");
    expect(res.status, res.text).toBe(200);
    const lines = (res.body as { value: { Product: { SKU: string } | null }[] }).value;
    expect(lines).toHaveLength(10);
    expect(lines.every((line) => typeof line.Product?.SKU === "string")).toBe(true);
    const read = caught.find((q) => q.sql.includes('"sales_order_detail"') && q.sql.includes('"product"'));
    expect(read).toBeDefined();
    const plan = await planOf(read!);
    const products = plan.filter((n) => n["Relation Name"] === "product");
    expect(products.length, JSON.stringify(plan)).toBeGreaterThan(0);
    expect(
      products.every((n) => n["Node Type"] === "Index Scan" && n["Index Name"] === "product_pkey"),
      JSON.stringify(products),
    ).toBe(true);
  });

  // the overlay of a page's entity leaves its base table bare in the UNION ALL, so the page is
  // read in the order of an index and stops when full, where hiding the staged base rows by an
  // anti join sorted every product of the tenant first
  it("reads a page in the order of an index, without sorting the whole table", async () => {
    const res = await firstStep("/api/Product?$select=SKU&$orderby=SKU&$top=20");
    expect(res.status, res.text).toBe(200);
    const skus = (res.body as { value: { SKU: string }[] }).value.map((p) => p.SKU);
    expect(skus).toHaveLength(20);
    expect(skus).toEqual([...skus].sort());
    const read = caught.find((q) => q.sql.includes('"product"') && q.sql.includes("ORDER BY"));
    expect(read).toBeDefined();
    const plan = await planOf(read!);
    const products = plan.filter((n) => n["Relation Name"] === "product");
    expect(
      products.every((n) => n["Node Type"] === "Index Scan"),
      JSON.stringify(products),
    ).toBe(true);
    // the base rows in SKU order (the natural key's index); the staged rows' main versions by key
    expect(products.filter((n) => n.Alias === "b").map((n) => n["Index Name"])).toEqual(["product_nk"]);
  });

  // a record read by its key: the key narrows both branches of the overlay, and the staged rows
  // are probed by that key, where gathering every staged key of the workflow first made a staged
  // PATCH's answer slower with every change staged before it
  it("reads a record by its key, probing the staged rows by that key alone", async () => {
    const [product] = (
      (await admin.request("GET", "/api/Product?$top=1&$select=SKU")).body as { value: { Guid: string }[] }
    ).value;
    const res = await firstStep(`/api/Product(${product!.Guid})?$select=SKU`);
    expect(res.status, res.text).toBe(200);
    expect((res.body as { Guid: string }).Guid).toBe(product!.Guid);
    const read = caught.find((q) => q.sql.includes('"product__staged"'));
    expect(read).toBeDefined();
    const plan = await planOf(read!);
    const staged = plan.filter((n) => n["Relation Name"] === "product__staged");
    expect(staged.length, JSON.stringify(plan)).toBeGreaterThan(0);
    for (const scan of staged) expect(scan["Index Cond"], JSON.stringify(scan)).toMatch(/guid = /);
  });
});
