/**
 * A tenant that grows from nothing must not leave its lookups by key to statistics that say it
 * has no rows: PostgreSQL would plan them on the smallest tenant-led index and read every row of
 * the tenant (table-growth.ts). The drivers analyze a table as its inserts double.
 */

import { uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open-database.js";
import type { RecordStore } from "./record-port.js";
import { analyzingGrowth } from "./table-growth.js";
import { inTenant } from "./tenant-scope.js";

// a small index led by the tenant: what a stale plan for a lookup by key picks instead of the primary key
const Ticket = entity("TgTicket", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Status: text({ maxLength: 1 }) },
  indexes: ["Status"],
});
const model = defineModel([Ticket]);

describe("analyzingGrowth", () => {
  const inserted: string[] = [];
  const store = { insert: async () => {}, insertStatement: () => ({ sql: "", params: [] }) } as unknown as RecordStore;
  const rows = (n: number) => Array.from({ length: n }, () => ({}));

  it("analyzes a table at 1,000 inserted rows, then each time the count has doubled, one at a time", async () => {
    let finish = () => {};
    const growing = analyzingGrowth(
      store,
      (statement) => {
        inserted.push(statement);
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
      "tenant column",
    );
    await growing.insert(null as never, Ticket, "t", rows(999));
    expect(inserted).toEqual([]);
    growing.insertStatement!(null as never, Ticket, "t", rows(1));
    expect(inserted).toEqual(['ANALYZE "tg_ticket" ("tenant_id")']);
    // running: more rows do not start a second one
    await growing.insert(null as never, Ticket, "t", rows(1500));
    expect(inserted).toHaveLength(1);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // 2,500 rows now, the next at 2,000 was passed while the first ran: it starts with the next insert
    await growing.insert(null as never, Ticket, "t", rows(1));
    expect(inserted).toHaveLength(2);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // the second ran at 2,501 rows: the third waits for 5,002
    await growing.insert(null as never, Ticket, "t", rows(2500));
    expect(inserted).toHaveLength(2);
    await growing.insert(null as never, Ticket, "t", rows(1));
    expect(inserted).toHaveLength(3);
  });

  it("survives a failing ANALYZE and tries again at the next doubling", async () => {
    const statements: string[] = [];
    const growing = analyzingGrowth(
      store,
      async (statement) => {
        statements.push(statement);
        throw new Error("server restarting");
      },
      "tenant column",
    );
    await growing.insert(null as never, Ticket, "t", rows(1000));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await growing.insert(null as never, Ticket, "t", rows(1000));
    expect(statements).toHaveLength(2);
  });

  it("analyzes the tenant column where autovacuum does the rest, the whole table where nothing else does", async () => {
    const statements: string[] = [];
    for (const what of ["tenant column", "table"] as const) {
      const growing = analyzingGrowth(store, async (statement) => void statements.push(statement), what);
      await growing.insert(null as never, Ticket, "t", rows(1000));
    }
    expect(statements).toEqual(['ANALYZE "tg_ticket" ("tenant_id")', 'ANALYZE "tg_ticket"']);
  });
});

describe("a tenant that grows from nothing", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ url: process.env.DATABASE_URL || "memory://", max: 2 });
    await migrate(db, model);
  });
  afterAll(() => db.close());

  const insert = (tenant: string, n: number, status: string) =>
    inTenant(db, tenant, (tx) =>
      tx.store.insert(
        tx,
        Ticket,
        tenant,
        Array.from({ length: n }, () => ({ Guid: crypto.randomUUID(), Code: crypto.randomUUID(), Status: status })),
      ),
    );
  const plan = async (tenant: string, guid: string) =>
    (
      await db.query<Record<string, string>>(
        sql`EXPLAIN SELECT 1 FROM tg_ticket WHERE tenant_id = ${tenant} AND guid = ${guid}::uuid`,
      )
    )
      .map((row) => Object.values(row)[0])
      .join("\n");

  it("gets its lookups by key planned on the primary key once its inserts are analyzed", async () => {
    // statistics that know one other tenant only
    await insert(uniqueTenant("tg-o"), 300, "O");
    await db.query(sql`ANALYZE tg_ticket`);
    const tenant = uniqueTenant("tg-n");
    for (let i = 0; i < 12; i++) await insert(tenant, 250, "N");
    const guid = crypto.randomUUID();
    let found = "";
    for (let attempt = 0; attempt < 100 && !/tg_ticket_pkey/.test(found); attempt++) {
      found = await plan(tenant, guid);
      if (!/tg_ticket_pkey/.test(found)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(found).toMatch(/Index (Only )?Scan using tg_ticket_pkey/);
  });
});
