/**
 * A read that runs inside a writing transaction (a `$batch` changeset's GET part, a workflow
 * step) runs on the write sessions, which leave cached plans to PostgreSQL for the sake of the
 * foreign-key checks. The compiled read must still be planned for its values at every run, as on
 * the read sessions: a generic plan ran a path filter 8x slower. PostgreSQL only (PGlite sends
 * every statement unnamed, planned for its values anyway); the database has one connection per
 * pool, so the prepared statements looked at are the ones the reads ran on.
 */
import { type Database, defineModel, entity, inTenant, migrate, openDatabase, ReadCache, text } from "@bizdata/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueTenant } from "../../../../test/database.js";
import { createODataService, type ODataService } from "./odata-service.js";
import { inChangeset } from "./request-scope.js";

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
    for (let i = 0; i < 8; i++) {
      const answer = await inChangeset(
        db,
        tenantId,
        async () => new ReadCache(),
        (scope) =>
          service.handle({
            method: "GET",
            path: `RpGadget(${guid})`,
            tenantId,
            search: new URLSearchParams("$select=Code"),
            scope,
          }),
      );
      expect(JSON.parse(answer.body!)).toMatchObject({ Guid: guid, Code: "G-1" });
    }
    const plans = await inTenant(db, tenantId, (tx) =>
      tx.query<{ generic: number; custom: number }>({
        sql: `SELECT generic_plans::int AS generic, custom_plans::int AS custom
              FROM pg_prepared_statements WHERE statement LIKE '%rp_gadget%' AND statement NOT LIKE '%pg_prepared_statements%'
              AND statement LIKE 'SELECT%'`,
        params: [],
      }),
    );
    // the key read, eight times, each planned for its values
    expect(plans).toEqual([{ generic: 0, custom: 8 }]);
  });
});
