/**
 * A workflow step runs in a writing transaction (it locks the workflow and moves its index), on
 * the write sessions, which leave cached plans to PostgreSQL for the foreign-key checks' sake. A
 * step's GET must still be planned for its values at every run: after five runs PostgreSQL may
 * switch a prepared statement to a generic plan, and a path filter's ran 8x slower in `pnpm
 * bench`. PostgreSQL only (PGlite sends every statement unnamed, planned for its values anyway).
 * The host's database has one connection per pool, so the prepared statements looked at after
 * the steps are the ones the steps ran on.
 */
import { type Database, inTenant, openDatabase } from "@bizdata/core";
import { sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext, createApp, createTenant, loadSigningKeys, setUser } from "@bizdata/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueTenant } from "../../../../test/database.js";
import { type Caller, caller, config, PASSWORD, signIn } from "../../../../test/host-app.js";
import { migrateService } from "../schema.js";

const onPostgres = Boolean(process.env.DATABASE_URL);
const SIZES = { products: 20, customers: 60, orders: 0, linesPerOrder: 0, invoices: 0, journals: 0 };

let db: Database | undefined;
let admin: Caller;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openDatabase({ url: process.env.DATABASE_URL!, max: 1 });
  await migrateService(db, sampleModel);
  const tenantId = uniqueTenant("wf-plan");
  await createTenant(db, tenantId);
  await seedSampleData(adminContext(db, sampleModel), tenantId, SIZES);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  const app = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
  admin = caller(app, tenantId, await signIn(app, tenantId, "admin"));
}, 120_000);
afterAll(() => db?.close());

describe.runIf(onPostgres)("a workflow step's read", () => {
  it("is planned for the values of each run, however often the step is repeated", async () => {
    const created = await admin.request("POST", "/api/workflow");
    const { workflowId } = (await created.json()) as { workflowId: string };
    const customersInTexas = `/api/Customer?${new URLSearchParams({
      $filter: "PrimaryContact/MailingAddress/State eq 'TX'",
      $select: "Id,Title",
      $expand: "PrimaryContact($select=FirstName,LastName)",
    })}`;
    const answers = [];
    for (let index = 1; index <= 8; index++) {
      const res = await admin.request("GET", customersInTexas, undefined, {
        "Workflow-Id": workflowId,
        "Workflow-Index": String(index),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      answers.push(((await res.json()) as { value: unknown[] }).value);
    }
    // the same answer every time, and not an empty one
    expect(answers[0]!.length).toBeGreaterThan(0);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    const plans = await inTenant(db!, admin.tenantId, (tx) =>
      tx.query<{ statement: string; generic: number; custom: number }>({
        sql: `SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
              FROM pg_prepared_statements WHERE statement LIKE '%mailing_address%'`,
        params: [],
      }),
    );
    expect(plans.map(({ generic, custom }) => ({ generic, custom }))).toEqual([{ generic: 0, custom: 8 }]);
  });
});
