/**
 * A read that runs inside a writing transaction (the record a changeset's PATCH answers with, a
 * workflow step's GET) runs on the write sessions, which leave cached plans to PostgreSQL for the
 * sake of the foreign-key checks. It is planned as its statement asks (plan-for-values.ts), as on
 * the read sessions: the answer by key on the plan PostgreSQL caches, an answer whose expand is
 * filtered for the values of every run (a generic plan ran a path filter 8x slower). PostgreSQL
 * only (PGlite sends every statement unnamed, planned for its values anyway); the database has one
 * connection per pool, so the prepared statements looked at are the ones the reads ran on.
 */
import {
  collection,
  type Database,
  defineModel,
  entity,
  inTenant,
  migrate,
  openDatabase,
  ReadCache,
  reference,
  text,
} from "@bizdata/core";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inChangeset } from "../batch/changeset-unit.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Part = entity("RpPart", {
  naturalKey: "Guid",
  fields: { Gadget: reference("RpGadget", { required: true }), Code: text() },
});
const Gadget = entity("RpGadget", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Name: text(), Parts: collection(Part, { inverse: "Gadget" }) },
});
const model = defineModel([Part, Gadget]);
const onPostgres = Boolean(process.env.DATABASE_URL);

let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("rp");

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openDatabase({ url: process.env.DATABASE_URL!, max: 1 });
  await migrate(db, model);
  service = createODataService({ db, model, basePath: "odata/v1/" });
});
afterAll(() => db?.close());

/** how often each prepared statement of the write sessions that reads `table` was planned generic and custom */
const plansOf = (table: string) =>
  inTenant(db, tenantId, (tx) =>
    tx.query<{ statement: string; generic: number; custom: number }>({
      sql: `SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
            FROM pg_prepared_statements WHERE statement LIKE $1`,
      params: [`SELECT%${table}%`],
    }),
  );

describe.runIf(onPostgres)("a read inside a changeset", () => {
  it("runs on a cached plan by key, and is planned for its values at every run when filtered", async () => {
    const created = await service.handle({
      method: "POST",
      path: "RpGadget",
      tenantId,
      search: new URLSearchParams(),
      body: async () => ({ Code: "G-1", Name: "One", Parts: [{ Code: "p" }, { Code: "q" }] }),
    });
    expect(created.status, created.body).toBe(201);
    const guid = JSON.parse(created.body!).Guid as string;
    // a PATCH part answers the record shaped by $select and $expand: read back in the changeset's transaction
    const patch = (search: string, i: number) =>
      inChangeset(
        db,
        tenantId,
        async () => new ReadCache(),
        (unit) =>
          service.handle(
            {
              method: "PATCH",
              path: `RpGadget(${guid})`,
              tenantId,
              search: new URLSearchParams(search),
              body: async () => ({ Name: `Name ${i}` }),
            },
            unit,
          ),
      );
    for (let i = 0; i < 8; i++) {
      const plain = await patch("$select=Name", i);
      expect(JSON.parse(plain.body!)).toMatchObject({ Guid: guid, Name: `Name ${i}` });
      const filtered = await patch("$select=Name&$expand=Parts($filter=Code eq 'p';$select=Code)", i);
      expect(JSON.parse(filtered.body!)).toMatchObject({ Guid: guid, Name: `Name ${i}`, Parts: [{ Code: "p" }] });
    }
    const reads = (await plansOf("rp_gadget")).filter((p) => !p.statement.includes("FOR UPDATE"));
    const byKey = reads.filter((p) => !p.statement.includes("rp_part"));
    const expanded = reads.filter((p) => p.statement.includes("rp_part"));
    // the answer by key: planned for its first runs' values, then on the plan PostgreSQL cached
    expect(byKey).toHaveLength(1);
    expect(byKey[0]!.generic + byKey[0]!.custom).toBe(8);
    expect(byKey[0]!.generic).toBeGreaterThan(0);
    // the answer with a filtered expand, eight times, each planned for its values
    expect(expanded.map(({ generic, custom }) => ({ generic, custom }))).toEqual([{ generic: 0, custom: 8 }]);
  });
});
