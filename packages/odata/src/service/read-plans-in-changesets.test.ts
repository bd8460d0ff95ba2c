/**
 * A read that runs inside a writing transaction (the record a changeset's PATCH answers with, a
 * workflow step's GET) runs on the write sessions, which leave cached plans to PostgreSQL for the sake of the
 * foreign-key checks. The compiled read must still be planned for its values at every run, as on
 * the read sessions: a generic plan ran a path filter 8x slower. PostgreSQL only (PGlite sends
 * every statement unnamed, planned for its values anyway); the database has one connection per
 * pool, so the prepared statements looked at are the ones the reads ran on.
 */
import { type Database, defineModel, entity, inTenant, migrate, openDatabase, ReadCache, text } from "@bizdata/core";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inChangeset } from "../batch/changeset-unit.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Gadget = entity("RpGadget", { naturalKey: "Code", fields: { Code: text({ required: true }), Name: text() } });
const model = defineModel([Gadget]);
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

describe.runIf(onPostgres)("a read inside a changeset", () => {
  it("is planned for its values at every run, on the sessions that cache the writes' plans", async () => {
    const created = await service.handle({
      method: "POST",
      path: "RpGadget",
      tenantId,
      search: new URLSearchParams(),
      body: async () => ({ Code: "G-1", Name: "One" }),
    });
    expect(created.status).toBe(201);
    const guid = JSON.parse(created.body!).Guid as string;
    // a PATCH part answers the record shaped by $select: read back in the changeset's transaction
    for (let i = 0; i < 8; i++) {
      const answer = await inChangeset(
        db,
        tenantId,
        async () => new ReadCache(),
        (unit) =>
          service.handle(
            {
              method: "PATCH",
              path: `RpGadget(${guid})`,
              tenantId,
              search: new URLSearchParams("$select=Name"),
              body: async () => ({ Name: `Name ${i}` }),
            },
            unit,
          ),
      );
      expect(JSON.parse(answer.body!)).toMatchObject({ Guid: guid, Name: `Name ${i}` });
    }
    const plans = await inTenant(db, tenantId, (tx) =>
      tx.query<{ statement: string; generic: number; custom: number }>({
        sql: `SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
              FROM pg_prepared_statements WHERE statement LIKE 'SELECT%rp_gadget%'`,
        params: [],
      }),
    );
    const compiled = plans.filter((p) => !p.statement.includes("FOR UPDATE"));
    const writes = plans.filter((p) => p.statement.includes("FOR UPDATE"));
    // the answer's read, eight times, each planned for its values
    expect(compiled.map(({ generic, custom }) => ({ generic, custom }))).toEqual([{ generic: 0, custom: 8 }]);
    // while the write's own lookup of the record by key is left to PostgreSQL, which caches its plan
    expect(writes).toHaveLength(1);
    expect(writes[0]!.generic).toBeGreaterThan(0);
  });
});
