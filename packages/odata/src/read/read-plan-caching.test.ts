/**
 * Which of the service's reads PostgreSQL runs on a plan it caches (PostgreSQL only: PGlite sends
 * every statement unnamed, planned for its values each time). A point read by key asks for none
 * (plan-for-values.ts): after its first runs it runs on the generic plan, the primary key's lookup
 * that any key gets, and skips planning, which cost it four times its execution. The bench's path
 * filter asks to be planned for its values: its generic plan joined every contact of the tenant
 * to each customer, 8x slower. Both take turns on the same read session, which switches its mode
 * only when the statement asks for the other (core's held-sessions.ts). The database has one
 * connection per pool, so the prepared statements looked at are the ones the reads ran on.
 */
import { type Database, inTenant, openDatabase, type SqlQuery } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
// the host's bulk loader, to seed the tenant in a second (what is tested is the service's reads)
import { adminContext } from "@bizdata/host";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { type PlanNode, planNodes, watched } from "@bizdata/test-kit/query-plans";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const onPostgres = Boolean(process.env.DATABASE_URL);
const SIZES = { products: 60, customers: 120, orders: 10, linesPerOrder: 2, invoices: 0, journals: 0 };

let db: Database;
let tenant: ServiceTenant;
let other: ServiceTenant;
let guids: string[];
let otherGuid: string;
const caught: SqlQuery[] = [];

const customersInTexas = `/api/Customer?${new URLSearchParams({
  $filter: "PrimaryContact/MailingAddress/State eq 'TX'",
  $select: "Id,Title",
  $expand: "PrimaryContact($select=FirstName,LastName)",
  $top: "50",
})}`;
const pointRead = (guid: string) => `/api/Product(${guid})?$select=SKU,Cost`;

/** the body of a GET, which must answer 200 */
async function get(path: string, as: ServiceTenant = tenant): Promise<unknown> {
  const res = await as.call("GET", path);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body);
}

/** the text of the statement the service sends for `path` */
async function statementOf(path: string): Promise<string> {
  caught.length = 0;
  await get(path);
  expect(caught).toHaveLength(1);
  return caught[0]!.sql;
}

/** how often the read session ran `statement` on a generic plan and on plans made for the values */
async function plansOf(statement: string): Promise<{ generic: number; custom: number } | undefined> {
  const [row] = await inTenant(
    db,
    tenant.tenantId,
    (tx) =>
      tx.query<{ generic: number; custom: number }>({
        sql: "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1",
        params: [statement],
      }),
    { readOnly: true, oneStatement: true },
  );
  return row;
}

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openDatabase({ url: process.env.DATABASE_URL!, max: 1 });
  const harness = await serviceHarness({ db: watched(db, caught) });
  tenant = harness.tenant(uniqueTenant("pc"));
  await seedSampleData(adminContext(db, sampleModel), tenant.tenantId, SIZES);
  await db.query({ sql: "ANALYZE product, customer, contact", params: [] });
  const page = (await get("/api/Product?$select=SKU&$top=8")) as { value: { Guid: string }[] };
  guids = page.value.map((p) => p.Guid);
  // a tenant with one product and no customers, whose reads must not see the first one's
  other = harness.tenant(uniqueTenant("pc-o"));
  const created = await other.call("POST", "/api/Product", { body: { SKU: "PC-OTHER" } });
  expect(created.status, await created.clone().text()).toBe(201);
  otherGuid = ((await created.json()) as { Guid: string }).Guid;
}, 120_000);
afterAll(() => db?.close());

describe.runIf(onPostgres)("the plans of the service's reads", () => {
  it("runs a point read by key on a cached generic plan after its first runs", async () => {
    const statement = await statementOf(pointRead(guids[0]!));
    const before = (await plansOf(statement)) ?? { generic: 0, custom: 0 };
    for (const guid of guids) expect(await get(pointRead(guid))).toMatchObject({ Guid: guid });
    const after = await plansOf(statement);
    expect(after!.generic + after!.custom - before.generic - before.custom).toBe(guids.length);
    expect(after!.generic).toBeGreaterThan(before.generic);
    expect(after!.custom).toBeLessThanOrEqual(5);
  });

  it("caches for the point read the primary key's lookup, the plan every key gets", async () => {
    const statement = await statementOf(pointRead(guids[0]!));
    // the generic plan, as PostgreSQL 15 shows one (16 has EXPLAIN (GENERIC_PLAN)): prepared and
    // explained under force_generic_plan, in a transaction of the tenant's that ends with it
    const plan = await inTenant(db, tenant.tenantId, async (tx) => {
      await tx.query({ sql: `PREPARE pc_point(text, text) AS ${statement}`, params: [] });
      await tx.query({ sql: "SET LOCAL plan_cache_mode = force_generic_plan", params: [] });
      // EXPLAIN takes no parameters: the values are a tenant id and a Guid, neither of which holds a quote
      const [row] = await tx.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({
        sql: `EXPLAIN (FORMAT JSON) EXECUTE pc_point('${tenant.tenantId}', '${guids[0]}')`,
        params: [],
      });
      await tx.query({ sql: "DEALLOCATE pc_point", params: [] });
      return planNodes(row!["QUERY PLAN"][0].Plan);
    });
    const products = plan.filter((n) => n["Relation Name"] === "product");
    expect(
      products.map((n) => [n["Node Type"], n["Index Name"]]),
      JSON.stringify(plan),
    ).toEqual([["Index Scan", "product_pkey"]]);
  });

  it("plans the path filter for its values at every run, taking turns with point reads", async () => {
    const filter = await statementOf(customersInTexas);
    const point = await statementOf(pointRead(guids[0]!));
    const [filterBefore, pointBefore] = [await plansOf(filter), await plansOf(point)];
    const answers = [];
    for (const guid of guids) {
      answers.push(JSON.stringify(await get(customersInTexas)));
      expect(await get(pointRead(guid))).toMatchObject({ Guid: guid });
    }
    // the same answer every time, and not an empty one
    expect(new Set(answers).size).toBe(1);
    expect((JSON.parse(answers[0]!) as { value: unknown[] }).value.length).toBeGreaterThan(0);
    const filterAfter = await plansOf(filter);
    expect(filterAfter!.generic).toBe(0);
    expect(filterAfter!.custom - (filterBefore?.custom ?? 0)).toBe(guids.length);
    const pointAfter = await plansOf(point);
    expect(pointAfter!.generic - (pointBefore?.generic ?? 0)).toBe(guids.length);
  });

  it("answers thirty point reads and path filters of two tenants at once as one at a time", async () => {
    // every fourth a point read of the other tenant's product
    const keys = [...guids.slice(0, 3), otherGuid];
    const paths = (i: number) => (i % 3 === 0 ? customersInTexas : pointRead(keys[i % keys.length]!));
    const as = (i: number) => (i % 2 ? other : tenant);
    const alone = [];
    for (let i = 0; i < 30; i++) alone.push(await as(i).call("GET", paths(i)));
    const together = await Promise.all(Array.from({ length: 30 }, (_, i) => as(i).call("GET", paths(i))));
    const bodies = (responses: Response[]) => Promise.all(responses.map(async (r) => [r.status, await r.text()]));
    const expected = await bodies(alone);
    expect(await bodies(together)).toEqual(expected);
    // each tenant found its own records only
    const mine = (i: number) => i % 3 === 0 || (i % keys.length === keys.length - 1) === (i % 2 === 1);
    expect(expected.map(([status], i) => (status === 200) === mine(i))).toEqual(expected.map(() => true));
    expect(
      expected.filter((_, i) => i % 3 === 0 && i % 2 === 1).map(([, body]) => JSON.parse(body as string).value),
    ).toEqual(Array.from({ length: 5 }, () => []));
  });
});
