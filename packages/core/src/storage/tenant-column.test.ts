/**
 * Tenant columns compare byte by byte (`COLLATE "C"`) in every table migrate makes. One that an
 * earlier version made in the database's own collation gets the byte order from migrate, at once
 * in a small table and when asked in a large one; until then it works beside the byte-ordered
 * ones: in joins, foreign keys, row-level security and the UNION of a base table with its staged twin.
 */
import { randomUUID } from "node:crypto";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { tenantFeatureTable, tenantTable } from "./system-tables.js";
import { tableDdl } from "./table-ddl.js";
import { inTenant } from "./tenant-scope.js";

const Owner = entity("TcOwner", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const Item = entity("TcItem", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Owner: reference("TcOwner") },
});
const model = defineModel([Owner, Item]);

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

/** the collation of each named table's tenant column: null for the database's own */
const collations = async (columns: readonly (readonly [string, string])[]) =>
  db.query<{ table: string; collation: string | null }>({
    sql: `SELECT c.table_name AS "table", c.collation_name AS collation
          FROM information_schema.columns c JOIN unnest($1::text[], $2::text[]) AS w(t, col)
            ON c.table_name = w.t AND c.column_name = w.col
          WHERE c.table_schema = current_schema() ORDER BY 1`,
    params: [columns.map(([t]) => t), columns.map(([, c]) => c)],
  });

describe("tenant columns", () => {
  it("compare byte by byte in the entity tables and their staged twins", async () => {
    const tenantColumns = [
      ["tc_owner", "tenant_id"],
      ["tc_item", "tenant_id"],
      ["tc_owner__staged", "tenant_id"],
      ["tc_item__staged", "tenant_id"],
    ] as const;
    const found = await collations(tenantColumns);
    expect(found.map((r) => r.table)).toEqual(tenantColumns.map(([t]) => t).sort());
    for (const { table, collation } of found) expect(collation, table).toBe("C");
  });

  it("are made byte-ordered in the tenant tables too", () => {
    expect(tableDdl(tenantFeatureTable).create[0]).toContain('"tenant_id" text COLLATE "C" NOT NULL');
    expect(tableDdl(tenantTable).create[0]).toContain('"id" text COLLATE "C" NOT NULL');
  });

  /**
   * `table`'s tenant column as a version before this one made it, in the database's collation (a
   * policy that uses a column forbids retyping it: migrate makes the policy again)
   */
  const asBefore = async (table: string) => {
    await db.query({ sql: `DROP POLICY ${table}_tenant ON ${table}`, params: [] });
    await db.query({ sql: `ALTER TABLE ${table} ALTER COLUMN tenant_id TYPE text COLLATE "default"`, params: [] });
  };

  /** an owner and an item in a new tenant; what a join, the staged UNION and a statement without a predicate see */
  const readBack = async () => {
    const tenant = uniqueTenant("tc");
    const owner = randomUUID();
    const item = randomUUID();
    return inTenant(db, tenant, async (tx) => {
      await tx.query({
        sql: "INSERT INTO tc_owner (tenant_id, guid, code) VALUES ($1, $2, 'O')",
        params: [tenant, owner],
      });
      // its foreign key compares the item's tenant with the owner's
      await tx.query({
        sql: "INSERT INTO tc_item (tenant_id, guid, code, owner_guid) VALUES ($1, $2, 'I', $3)",
        params: [tenant, item, owner],
      });
      const [joined, unioned, others] = await Promise.all([
        tx.query<{ code: string }>({
          sql: `SELECT o.code FROM tc_item i JOIN tc_owner o ON o.tenant_id = i.tenant_id AND o.guid = i.owner_guid
                WHERE i.tenant_id = $1`,
          params: [tenant],
        }),
        tx.query<{ tenant_id: string }>({
          sql: `SELECT tenant_id FROM (SELECT tenant_id, guid FROM tc_item UNION ALL SELECT tenant_id, guid FROM tc_item__staged) r
                WHERE tenant_id = $1 ORDER BY tenant_id`,
          params: [tenant],
        }),
        // row-level security hides every other tenant's rows from statements without a predicate
        tx.query<{ n: number }>({
          sql: "SELECT (SELECT count(*) FROM tc_owner WHERE guid <> $1) + (SELECT count(*) FROM tc_item WHERE guid <> $2) AS n",
          params: [owner, item],
        }),
      ]);
      return { tenant, joined, unioned, others: Number(others[0]!.n) };
    });
  };
  /** what readBack sees in its tenant when all works: the owner by the join, the item once in the UNION, nothing else */
  const works = (read: Awaited<ReturnType<typeof readBack>>) =>
    expect(read).toEqual({
      tenant: read.tenant,
      joined: [{ code: "O" }],
      unioned: [{ tenant_id: read.tenant }],
      others: 0,
    });

  it("made by an earlier version in the database's collation, get their byte order from migrate", async () => {
    const tenant = uniqueTenant("tc-old");
    const owner = randomUUID();
    await inTenant(db, tenant, (tx) =>
      tx.query({ sql: "INSERT INTO tc_owner (tenant_id, guid, code) VALUES ($1, $2, 'Old')", params: [tenant, owner] }),
    );
    await asBefore("tc_owner");
    expect((await collations([["tc_owner", "tenant_id"]]))[0]!.collation).toBeNull();

    expect(await migrate(db, model)).toEqual({ converted: ["tc_owner"], largeTablesLeft: [], conversionsBlocked: [] });
    expect((await collations([["tc_owner", "tenant_id"]]))[0]!.collation).toBe("C");
    // the rows stay, the policy is back, and the next migration has nothing to do
    const kept = await inTenant(db, tenant, (tx) =>
      tx.query<{ guid: string }>({ sql: "SELECT guid FROM tc_owner", params: [] }),
    );
    expect(kept).toEqual([{ guid: owner }]);
    works(await readBack());
    expect(await migrate(db, model)).toEqual({ converted: [], largeTablesLeft: [], conversionsBlocked: [] });
  });

  it("that a view or a policy of the application's own uses stay as they were, reported, and the migration goes on", async () => {
    await asBefore("tc_owner");
    await db.query({ sql: "CREATE VIEW tc_owner_codes AS SELECT tenant_id, code FROM tc_owner", params: [] });
    // restrictive: it narrows what the tenant policy lets through, never widens it
    await db.query({
      sql: "CREATE POLICY tc_owner_audit ON tc_owner AS RESTRICTIVE FOR ALL TO bizdata_app USING (tenant_id <> '')",
      params: [],
    });
    try {
      expect(await migrate(db, model)).toEqual({
        converted: [],
        largeTablesLeft: [],
        conversionsBlocked: [{ table: "tc_owner", usedBy: ["policy tc_owner_audit", "view tc_owner_codes"] }],
      });
      expect((await collations([["tc_owner", "tenant_id"]]))[0]!.collation).toBeNull();
      // its policy is made again, and the tables work as before
      works(await readBack());
    } finally {
      await db.query({ sql: "DROP VIEW IF EXISTS tc_owner_codes", params: [] });
      await db.query({ sql: "DROP POLICY IF EXISTS tc_owner_audit ON tc_owner", params: [] });
    }
    expect(await migrate(db, model)).toEqual({ converted: ["tc_owner"], largeTablesLeft: [], conversionsBlocked: [] });
  });

  it("of a large table keep the database's collation, and work beside byte-ordered ones, until the conversion is asked for", async () => {
    // a table the planner counts as large (byte-order-upgrade.ts), in a tenant of its own
    const bulk = uniqueTenant("tc-bulk");
    await db.query({
      sql: "INSERT INTO tc_item (tenant_id, guid, code) SELECT $1, gen_random_uuid(), 'bulk-' || g FROM generate_series(1, 100000) g",
      params: [bulk],
    });
    await db.query({ sql: "ANALYZE tc_item", params: [] });
    await asBefore("tc_item");
    try {
      expect(await migrate(db, model)).toEqual({ converted: [], largeTablesLeft: ["tc_item"], conversionsBlocked: [] });
      expect((await collations([["tc_item", "tenant_id"]]))[0]!.collation).toBeNull();
      // in the database's collation beside the byte-ordered owner: foreign key, join, the staged
      // twin's UNION and the policy migrate made again all work
      works(await readBack());

      expect(await migrate(db, model, [], { convertLargeTables: true })).toEqual({
        converted: ["tc_item"],
        largeTablesLeft: [],
        conversionsBlocked: [],
      });
      expect((await collations([["tc_item", "tenant_id"]]))[0]!.collation).toBe("C");
      const [{ n }] = (await inTenant(db, bulk, (tx) =>
        tx.query<{ n: number }>({ sql: "SELECT count(*)::int AS n FROM tc_item", params: [] }),
      )) as [{ n: number }];
      expect(n).toBe(100_000);
      works(await readBack());
    } finally {
      await db.query({ sql: "DELETE FROM tc_item WHERE tenant_id = $1", params: [bulk] });
      await migrate(db, model, [], { convertLargeTables: true });
    }
  });

  it("of a large table that was never analyzed are counted, and keep the database's collation", async () => {
    const bulk = uniqueTenant("tc-unanalyzed");
    await db.query({
      sql: "INSERT INTO tc_item (tenant_id, guid, code) SELECT $1, gen_random_uuid(), 'bulk-' || g FROM generate_series(1, 100000) g",
      params: [bulk],
    });
    await asBefore("tc_item");
    // the planner's estimate of a table no ANALYZE has seen (PGlite runs no autovacuum); the
    // retyping above rebuilt the indexes, which estimated it, so it is put back by hand
    await db.query({ sql: "UPDATE pg_class SET reltuples = -1 WHERE oid = 'tc_item'::regclass", params: [] });
    try {
      expect(await migrate(db, model)).toEqual({ converted: [], largeTablesLeft: ["tc_item"], conversionsBlocked: [] });
      expect((await collations([["tc_item", "tenant_id"]]))[0]!.collation).toBeNull();
    } finally {
      await db.query({ sql: "DELETE FROM tc_item WHERE tenant_id = $1", params: [bulk] });
      await migrate(db, model, [], { convertLargeTables: true });
    }
  });

  it("of a small table that was never analyzed are converted at once", async () => {
    await asBefore("tc_item");
    await db.query({ sql: "UPDATE pg_class SET reltuples = -1 WHERE oid = 'tc_item'::regclass", params: [] });
    expect(await migrate(db, model)).toEqual({ converted: ["tc_item"], largeTablesLeft: [], conversionsBlocked: [] });
    works(await readBack());
  });
});
