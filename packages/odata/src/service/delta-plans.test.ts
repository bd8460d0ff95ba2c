/**
 * A delta read's plans (PostgreSQL only: plans are its planner's). A delta is two statements: the
 * range of the change log since its token (change-reads.ts), and the link's read of the records
 * those changes name. At 1,000 changes among 1,000,000 records, with the log holding other
 * entities' and tenants' changes too, both go by index: the log's (tenant, entity, transaction,
 * sequence) for the range, the records' primary key for the keys.
 */
import {
  CHANGE_TABLE,
  changeWatermark,
  type Database,
  decimal,
  defineModel,
  entity,
  inTenant,
  type SqlQuery,
  text,
} from "@bizdata/core";
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { serviceHarness } from "@bizdata/test-kit/odata-harness";
import { type PlanNode, tenantPlan, watched } from "@bizdata/test-kit/query-plans";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultQueryLimits } from "../limits.js";
import { encodeToken, queryDigest } from "./delta-token.js";

const onPostgres = Boolean(process.env.DATABASE_URL);
const RECORDS = 1_000_000;
const CHANGES = 1000;

const Record_ = entity("DpRecord", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Amount: decimal() },
});
const Other = entity("DpOther", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const model = defineModel([Record_, Other]);

let db: Database;
const caught: SqlQuery[] = [];
const tenantId = uniqueTenant("dp");
let call: (method: string, url: string, body?: unknown) => Promise<Response>;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await testDatabase();
  const { tenant } = await serviceHarness({
    model,
    db: watched(db, caught),
    queryLimits: { ...defaultQueryLimits, maxPageSize: CHANGES },
  });
  const t = tenant(tenantId);
  call = (method, url, body) => t.call(method, url, body === undefined ? {} : { body });
  // the records, loaded as a bulk load does (no change log rows)
  await db.query({
    sql: `INSERT INTO dp_record (tenant_id, guid, code, amount) SELECT $1, gen_random_uuid(), 'c' || g, g FROM generate_series(1, ${RECORDS}) AS g`,
    params: [tenantId],
  });
  // other changes in the log: of another entity of the tenant, and of other tenants
  await db.query({
    sql: `INSERT INTO ${CHANGE_TABLE} (tenant_id, entity, key, kind) SELECT CASE WHEN g % 2 = 0 THEN $1 ELSE 'dp-other-' || (g % 7) END, 'DpOther', gen_random_uuid(), 'update' FROM generate_series(1, 100000) AS g`,
    params: [tenantId],
  });
  await db.query({ sql: `ANALYZE dp_record, ${CHANGE_TABLE}`, params: [] });
}, 600_000);

afterAll(async () => {
  if (!onPostgres) return;
  // a million rows is this test's, not the next run's
  await db.query({ sql: "DELETE FROM dp_record WHERE tenant_id = $1", params: [tenantId] });
  await db.query({ sql: `DELETE FROM ${CHANGE_TABLE} WHERE entity = 'DpOther' OR tenant_id = $1`, params: [tenantId] });
});

const nodes = (plan: readonly PlanNode[], relation: string) => plan.filter((n) => n["Relation Name"] === relation);

describe.runIf(onPostgres)("a delta read of 1,000 changes among 1,000,000 records", () => {
  it("reads the log's range and the changed records by index", async () => {
    const from = await inTenant(db, tenantId, (tx) => changeWatermark(tx));
    const picked = await db.query<{ guid: string }>({
      sql: `SELECT guid::text FROM dp_record WHERE tenant_id = $1 ORDER BY code LIMIT ${CHANGES}`,
      params: [tenantId],
    });
    for (let i = 0; i < picked.length; i += 20)
      await Promise.all(
        picked.slice(i, i + 20).map(async ({ guid }) => {
          expect((await call("PATCH", `/api/DpRecord(${guid})`, { Amount: -1 })).status).toBe(200);
        }),
      );
    const search = new URLSearchParams("$select=Code,Amount");
    const token = encodeToken({ kind: "delta", from, began: Date.now(), query: queryDigest("DpRecord", search) });
    await changesSettled(db);
    caught.length = 0;
    const started = performance.now();
    const res = await call("GET", `/api/DpRecord?${search}&$deltatoken=${token}`);
    const ms = performance.now() - started;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { value: { Amount: number }[]; "@odata.deltaLink"?: string };
    expect(body.value).toHaveLength(CHANGES);
    expect(body.value.every((r) => r.Amount === -1)).toBe(true);
    expect(body["@odata.deltaLink"]).toEqual(expect.any(String));
    const [range, records] = caught.filter((s) => !/^SELECT set_config/.test(s.sql));
    expect(caught.filter((s) => !/^SELECT set_config/.test(s.sql))).toHaveLength(2);
    const log = nodes(await tenantPlan(db, tenantId, range!), CHANGE_TABLE);
    expect(log.map((n) => n["Node Type"])).not.toContain("Seq Scan");
    expect(log.map((n) => n["Index Name"])).toContain(`${CHANGE_TABLE}_entity_ix`);
    const read = nodes(await tenantPlan(db, tenantId, records!), "dp_record");
    expect(read.map((n) => n["Node Type"])).not.toContain("Seq Scan");
    expect(read.map((n) => n["Index Name"])).toContain("dp_record_pkey");
    console.info(`a delta of ${CHANGES} changes among ${RECORDS} records: ${Math.round(ms)} ms`);
  }, 600_000);
});
