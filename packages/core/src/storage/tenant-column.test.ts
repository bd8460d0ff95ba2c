/**
 * Tenant columns compare byte by byte (`COLLATE "C"`) in every table migrate makes (a fresh
 * database's; a table made before keeps its own), and a tenant
 * column an earlier version made in the database's own collation keeps working beside them: in
 * joins, foreign keys, row-level security and the UNION of a base table with its staged twin.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
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

  it("made by an earlier version in the database's collation, work beside byte-ordered ones", async () => {
    // the owner table as a version before this one made it; migrate retypes no column (a
    // policy that uses a column forbids retyping it: migrate makes the policy again)
    const retype = async (collation: string) => {
      await db.query({ sql: "DROP POLICY tc_owner_tenant ON tc_owner", params: [] });
      await db.query({
        sql: `ALTER TABLE tc_owner ALTER COLUMN tenant_id TYPE text COLLATE "${collation}"`,
        params: [],
      });
    };
    await retype("default");
    try {
      await migrate(db, model);
      expect((await collations([["tc_owner", "tenant_id"]]))[0]!.collation).toBeNull();
      const tenant = uniqueTenant("tc");
      const owner = randomUUID();
      const item = randomUUID();
      const [joined, unioned, other] = await inTenant(db, tenant, async (tx) => {
        await tx.query({
          sql: "INSERT INTO tc_owner (tenant_id, guid, code) VALUES ($1, $2, 'O')",
          params: [tenant, owner],
        });
        // its foreign key compares the item's byte-ordered tenant with the owner's
        await tx.query({
          sql: "INSERT INTO tc_item (tenant_id, guid, code, owner_guid) VALUES ($1, $2, 'I', $3)",
          params: [tenant, item, owner],
        });
        return Promise.all([
          tx.query<{ code: string }>({
            sql: `SELECT o.code FROM tc_item i JOIN tc_owner o ON o.tenant_id = i.tenant_id AND o.guid = i.owner_guid
                  WHERE i.tenant_id = $1`,
            params: [tenant],
          }),
          tx.query<{ tenant_id: string }>({
            sql: `SELECT tenant_id FROM (SELECT tenant_id, guid FROM tc_owner UNION ALL SELECT tenant_id, guid FROM tc_owner__staged) r
                  WHERE tenant_id = $1 ORDER BY tenant_id`,
            params: [tenant],
          }),
          // row-level security still hides another tenant's rows from a statement without a predicate
          tx.query<{ n: number }>({ sql: "SELECT count(*)::int AS n FROM tc_owner WHERE guid <> $1", params: [owner] }),
        ]);
      });
      expect(joined).toEqual([{ code: "O" }]);
      expect(unioned).toEqual([{ tenant_id: tenant }]);
      expect(other).toEqual([{ n: 0 }]);
    } finally {
      await retype("C");
      await migrate(db, model);
    }
  });
});
