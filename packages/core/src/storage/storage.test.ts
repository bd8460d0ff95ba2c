import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import {
  boolean,
  collection,
  complex,
  date,
  datetime,
  decimal,
  enumeration,
  integer,
  reference,
  text,
} from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { deleteRecords, insertRecords, loadRecords, updateRecordRow } from "./record-store.js";
import { inTenant } from "./tenant-scope.js";

// table names of their own, so this model never meets another test's tables in a shared database
const Land = entity("StLand", { naturalKey: "Code", fields: { Code: text({ required: true, maxLength: 2 }) } });
const Line = entity("StLine", {
  naturalKey: "Guid",
  fields: { Doc: reference("StDoc", { required: true }), Qty: decimal({ precision: 18, scale: 4 }), No: integer() },
});
const Doc = entity("StDoc", {
  naturalKey: "Number",
  fields: {
    Number: text({ required: true }),
    Status: enumeration(["Open", "Closed"], { default: "Open" }),
    Day: date(),
    At: datetime(),
    Done: boolean({ default: false }),
    Address: complex({ City: text(), Land: reference("StLand") }),
    Lines: collection(Line, { inverse: "Doc" }),
  },
});
const model = defineModel([Land, Line, Doc]);

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

const g = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

describe("declared indexes", () => {
  // a version of an entity without the index, with many rows, then with it: the upgrade builds it
  const fields = { Number: text({ required: true }), Status: text() };
  const before = defineModel([entity("StBig", { naturalKey: "Number", fields })]);
  const after = defineModel([entity("StBig", { naturalKey: "Number", fields, indexes: ["Status"] })]);

  it("are built by migrate on an existing table, also a large one, and serve its queries", async () => {
    // past the size from which PostgreSQL builds a new index concurrently; PGlite always builds it in the migration
    const rows = db.driver === "postgres" ? 120_000 : 20_000;
    await migrate(db, before);
    const tenant = uniqueTenant();
    await inTenant(db, tenant, (tx) =>
      tx.query({
        sql: "INSERT INTO st_big (tenant_id, guid, number, status) SELECT $1, gen_random_uuid(), 'N' || i, CASE WHEN i % 100 = 0 THEN 'Open' ELSE 'Closed' END FROM generate_series(1, $2::int) AS i",
        params: [tenant, rows],
      }),
    );
    await db.query({ sql: "ANALYZE st_big", params: [] });
    await migrate(db, after);
    const [index] = await db.query<{ valid: boolean }>({
      sql: "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'st_big_status_ix'",
      params: [],
    });
    expect(index?.valid).toBe(true);
    const plan = await inTenant(db, tenant, (tx) =>
      tx.query<{ "QUERY PLAN": string }>({
        sql: "EXPLAIN SELECT guid FROM st_big WHERE tenant_id = $1 AND status = 'Open'",
        params: [tenant],
      }),
    );
    expect(plan.map((r) => Object.values(r)[0]).join("\n")).toContain("st_big_status_ix");
  }, 120_000);
});

describe("a reference's own index", () => {
  // a reference with its own index, then a declared index led by it: the upgrade drops the first
  const Head = entity("StRefHead", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
  const fields = { Head: reference("StRefHead"), Status: text() };
  const before = defineModel([Head, entity("StRefLine", { naturalKey: "Guid", fields })]);
  const after = defineModel([Head, entity("StRefLine", { naturalKey: "Guid", fields, indexes: [["Head", "Status"]] })]);
  const indexes = async () =>
    (
      await db.query<{ name: string }>({
        sql: "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'st_ref_line' ORDER BY indexname",
        params: [],
      })
    ).map((r) => r.name);

  it("goes when a declared index leads with the reference, which then serves its lookups and the target's deletes", async () => {
    await migrate(db, before);
    expect(await indexes()).toContain("st_ref_line_head_guid_idx");
    await migrate(db, after);
    expect(await indexes()).toEqual(["st_ref_line_head_guid_status_ix", "st_ref_line_pkey"]);
    // again: nothing left to drop, nothing made twice
    await migrate(db, after);
    expect(await indexes()).toEqual(["st_ref_line_head_guid_status_ix", "st_ref_line_pkey"]);

    const tenant = uniqueTenant();
    await inTenant(db, tenant, async (tx) => {
      await tx.query({
        sql: "INSERT INTO st_ref_head (tenant_id, guid, code) VALUES ($1, $2, 'H')",
        params: [tenant, g(1)],
      });
      await tx.query({
        sql: "INSERT INTO st_ref_line (tenant_id, guid, head_guid, status) VALUES ($1, $2, $3, 'Open')",
        params: [tenant, g(2), g(1)],
      });
    });
    const plan = await inTenant(db, tenant, async (tx) => {
      // the table is tiny: only an index the planner may not use would make it scan
      await tx.query({ sql: "SET LOCAL enable_seqscan = off", params: [] });
      return tx.query({
        sql: "EXPLAIN SELECT guid FROM st_ref_line WHERE tenant_id = $1 AND head_guid = $2",
        params: [tenant, g(1)],
      });
    });
    expect(plan.map((r) => Object.values(r)[0]).join("\n")).toContain("st_ref_line_head_guid_status_ix");
    // the foreign key still holds: a head with a line cannot go
    await expect(
      inTenant(db, tenant, (tx) => tx.query({ sql: "DELETE FROM st_ref_head WHERE tenant_id = $1", params: [tenant] })),
    ).rejects.toThrow(/foreign key/);
  });
});

describe("storage", () => {
  it("migrates idempotently, also when run concurrently", async () => {
    await Promise.all([migrate(db, model), migrate(db, model)]);
  });

  it("inserts, loads, updates and deletes records with exact decimals and nested values", async () => {
    const tenant = uniqueTenant();
    await inTenant(db, tenant, async (tx) => {
      await insertRecords(tx, Land, tenant, [{ Guid: g(1), Title: "DE", Code: "DE" }]);
      await insertRecords(tx, Doc, tenant, [
        {
          Guid: g(2),
          Title: null,
          Number: "D1",
          Status: "Open",
          Day: "2026-01-31",
          At: "2026-01-31T10:00:00Z",
          Done: false,
          Address: { City: "Köln", Land: g(1) },
        },
      ]);
      await insertRecords(tx, Line, tenant, [{ Guid: g(3), Title: null, Doc: g(2), Qty: "1234567.8901", No: 1 }]);
      const [doc] = await loadRecords(tx, Doc, tenant, [g(2)]);
      expect(doc).toMatchObject({
        Number: "D1",
        Day: "2026-01-31",
        Address: { City: "Köln", Land: g(1) },
        Done: false,
      });
      const [line] = await loadRecords(tx, Line, tenant, [g(3)]);
      expect(line?.Qty).toBe(1234567.8901);
      expect(await updateRecordRow(tx, Doc, tenant, g(2), { Status: "Closed", Address: { City: "Bonn" } })).toBe(true);
      expect(await updateRecordRow(tx, Doc, tenant, g(9), { Status: "Closed" })).toBe(false);
      const [updated] = await loadRecords(tx, Doc, tenant, [g(2)]);
      expect(updated).toMatchObject({ Status: "Closed", Address: { City: "Bonn", Land: g(1) } });
      expect(await deleteRecords(tx, Doc, tenant, [g(2)])).toEqual([g(2)]);
      // the line went with its owner
      expect(await loadRecords(tx, Line, tenant, [g(3)])).toEqual([]);
    });
  });

  it("keeps every text of records inserted together exactly, whatever quotes, backslashes, commas or braces it holds", async () => {
    // records inserted together go as arrays of column values, each sent as an array literal
    const texts = fc.oneof(fc.string(), fc.constantFrom('"', "\\", '\\"', "NULL", "{a,b}", " x ", ""));
    await fc.assert(
      fc.asyncProperty(fc.array(texts, { minLength: 2, maxLength: 6 }), async (cities) => {
        const tenant = uniqueTenant("st-text");
        const records = cities.map((City, i) => ({ Guid: g(100 + i), Number: `T${i}`, Address: { City, Land: null } }));
        const loaded = await inTenant(db, tenant, async (tx) => {
          await insertRecords(tx, Doc, tenant, records);
          return loadRecords(
            tx,
            Doc,
            tenant,
            records.map((r) => r.Guid),
          );
        });
        const byGuid = new Map(loaded.map((r) => [r.Guid, (r.Address as { City: string }).City]));
        expect(records.map((r) => byGuid.get(r.Guid))).toEqual(cities);
      }),
      { numRuns: 25 },
    );
  });

  it("keeps natural keys unique per tenant, not across tenants", async () => {
    const [a, b] = [uniqueTenant(), uniqueTenant()];
    await inTenant(db, a, (tx) => insertRecords(tx, Land, a, [{ Guid: g(1), Code: "FR" }]));
    await inTenant(db, b, (tx) => insertRecords(tx, Land, b, [{ Guid: g(1), Code: "FR" }]));
    await expect(inTenant(db, a, (tx) => insertRecords(tx, Land, a, [{ Guid: g(2), Code: "FR" }]))).rejects.toThrow();
  });

  it("row-level security hides other tenants' rows even without a tenant predicate", async () => {
    const [a, b] = [uniqueTenant(), uniqueTenant()];
    await inTenant(db, a, (tx) => insertRecords(tx, Land, a, [{ Guid: g(5), Code: "IT" }]));
    const seenByB = await inTenant(db, b, (tx) => tx.query(sql`SELECT code FROM st_land WHERE guid = ${g(5)}::uuid`));
    expect(seenByB).toEqual([]);
    const seenByA = await inTenant(db, a, (tx) => tx.query(sql`SELECT code FROM st_land WHERE guid = ${g(5)}::uuid`));
    expect(seenByA).toEqual([{ code: "IT" }]);
    // and it cannot write into another tenant either
    await expect(inTenant(db, b, (tx) => insertRecords(tx, Land, a, [{ Guid: g(6), Code: "ES" }]))).rejects.toThrow(
      /row-level security/,
    );
  });

  it("rejects a reference into another tenant", async () => {
    const [a, b] = [uniqueTenant(), uniqueTenant()];
    await inTenant(db, a, (tx) => insertRecords(tx, Doc, a, [{ Guid: g(7), Number: "X" }]));
    await expect(
      inTenant(db, b, (tx) => insertRecords(tx, Line, b, [{ Guid: g(8), Doc: g(7), Qty: 1 }])),
    ).rejects.toThrow();
  });

  it("enforces read-only transactions", async () => {
    const t = uniqueTenant();
    await expect(
      inTenant(db, t, (tx) => insertRecords(tx, Land, t, [{ Guid: g(1), Code: "NL" }]), { readOnly: true }),
    ).rejects.toThrow(/read-only/);
  });
});
