/**
 * The PostgreSQL driver behind PgBouncer in transaction pooling mode (packages/test-kit/src/pgbouncer.ts),
 * where a server session serves whichever client's transaction comes next: the driver detects the
 * pooler and sets role, tenant and limits in every transaction (pooler-mode.ts). PgBouncer gets
 * fewer server connections than the driver opens, so the transactions of different tenants take
 * turns on the same server sessions. Row-level security must hold whichever role PgBouncer
 * connects as: the owner, or a login role that is only a member of the application role.
 */

import postgres from "@bizdata/postgres";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { missingPgbouncer, type Pgbouncer, startPgbouncer } from "@bizdata/test-kit/pgbouncer";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open-database.js";
import { behindPooler } from "./pooler-mode.js";
import { insertRecords } from "./record-store.js";
import { APP_ROLE } from "./tenant-policy.js";
import { inTenant } from "./tenant-scope.js";

const serverUrl = process.env.DATABASE_URL;
const missing = serverUrl ? await missingPgbouncer() : "no PostgreSQL server (DATABASE_URL)";
if (missing) console.warn(`skipping the tests through PgBouncer: ${missing}`);

const Item = entity("PbItem", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const model = defineModel([Item]);
/** a login role with no rights of its own, a member of the application role: how a pooler may connect */
const APP_LOGIN = "bizdata_pooler_app";

const READ = { readOnly: true, oneStatement: true } as const;

describe.skipIf(missing !== undefined)("the PostgreSQL driver behind PgBouncer in transaction mode", () => {
  let pgbouncer: Pgbouncer;
  /** through PgBouncer, connecting as the owner and as the application's login role */
  const dbs: Record<"owner" | "app", Database> = {} as never;
  beforeAll(async () => {
    const owner = new URL(serverUrl!).username || "postgres";
    pgbouncer = await startPgbouncer(serverUrl!, { users: [owner, APP_LOGIN], poolSize: 3 });
    dbs.owner = await openDatabase({ url: pgbouncer.url(), max: 10 });
    // the migration through the pooler too (its advisory lock is the transaction's)
    await migrate(dbs.owner, model);
    await dbs.owner.query({
      sql: `DO $$ BEGIN CREATE ROLE ${APP_LOGIN} LOGIN IN ROLE ${APP_ROLE}; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
      params: [],
    });
    dbs.app = await openDatabase({ url: pgbouncer.url(APP_LOGIN), max: 10 });
  });
  afterAll(async () => {
    await Promise.all(Object.values(dbs).map((db) => db.close()));
    await pgbouncer?.stop();
  });

  const insert = (db: Database, tenant: string, codes: readonly string[]) =>
    inTenant(db, tenant, (tx) =>
      insertRecords(
        tx,
        Item,
        tenant,
        codes.map((Code) => ({ Guid: crypto.randomUUID(), Code })),
      ),
    );
  /** every row the statement sees, through SQL without a tenant predicate: row-level security alone decides */
  const everyRow = (db: Database, tenant: string) =>
    inTenant(
      db,
      tenant,
      (tx) => tx.query<{ tenant_id: string; code: string }>(sql`SELECT tenant_id, code FROM pb_item ORDER BY code`),
      READ,
    );

  it("tells a pooler by its cancel key, and a direct connection by the backend's", async () => {
    for (const [url, pooled] of [
      [pgbouncer.url(), true],
      [serverUrl!, false],
    ] as const) {
      const probe = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
      await expect(behindPooler(probe).finally(() => probe.end())).resolves.toBe(pooled);
    }
  });

  it("refuses session mode behind the pooler, naming the setting", async () => {
    const session = await openDatabase({ url: pgbouncer.url(), pooler: "session" });
    await expect(session.query(sql`SELECT 1`)).rejects.toThrow(/DATABASE_POOLER=session behind a connection pooler/);
    await session.close();
  });

  for (const role of ["owner", "app"] as const) {
    describe(`connecting as ${role === "owner" ? "the owner" : "a member of the application role"}`, () => {
      it("reads and writes: one-statement reads, transactions of several statements, inserts sent with the COMMIT, rollbacks", async () => {
        const db = dbs[role];
        const tenant = uniqueTenant("pb");
        await insert(db, tenant, ["A", "B"]);
        expect((await everyRow(db, tenant)).map((r) => r.code)).toEqual(["A", "B"]);
        // several statements, read-only, planned for their values
        const counts = await inTenant(
          db,
          tenant,
          async (tx) => [
            await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pb_item WHERE code = ${"A"}`),
            await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM pb_item WHERE code > ${"A"}`),
          ],
          { readOnly: true },
        );
        expect(counts).toEqual([[{ n: 1 }], [{ n: 1 }]]);
        // a failing write keeps nothing of its transaction
        await expect(
          inTenant(db, tenant, async (tx) => {
            await tx.query(sql`UPDATE pb_item SET code = 'C' WHERE code = 'A'`);
            await tx.query(sql`SELECT 1 / 0`);
          }),
        ).rejects.toThrow(/division by zero/);
        // a statement, then inserts that wait and go with the COMMIT (write-behind.ts)
        await inTenant(db, tenant, async (tx) => {
          await tx.query(sql`UPDATE pb_item SET code = 'D' WHERE code = ${"B"}`);
          await insertRecords(tx, Item, tenant, [{ Guid: crypto.randomUUID(), Code: "E" }]);
        });
        expect((await everyRow(db, tenant)).map((r) => r.code)).toEqual(["A", "D", "E"]);
        // the limits hold in every transaction, as the startup parameters held them on a session
        const [limits] = await inTenant(
          db,
          tenant,
          (tx) =>
            tx.query<Record<string, string>>(
              sql`SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock, current_user AS role`,
            ),
          READ,
        );
        expect(limits).toEqual({ statement: "30s", lock: "10s", role: APP_ROLE });
      });

      it("leaves nothing on the server sessions: no tenant, no role, no prepared statement", async () => {
        const db = dbs[role];
        await insert(db, uniqueTenant("pb"), ["L"]);
        await everyRow(db, uniqueTenant("pb"));
        // more statements than PgBouncer has server sessions, so these meet the ones the tenants used
        const left = await Promise.all(
          Array.from({ length: 12 }, () =>
            db.query<{ tenant: string; role: string; prepared: number }>(
              sql`SELECT coalesce(current_setting('app.tenant_id', true), '') AS tenant, current_user AS role,
                         (SELECT count(*)::int FROM pg_prepared_statements) AS prepared`,
            ),
          ),
        );
        for (const [row] of left)
          expect(row).toEqual({ tenant: "", role: role === "owner" ? expect.any(String) : APP_LOGIN, prepared: 0 });
        expect(left.every(([row]) => row!.role !== APP_ROLE)).toBe(true);
      });

      it("keeps two tenants apart under thirty parallel reads and writes through one database handle", async () => {
        const db = dbs[role];
        const tenants = [uniqueTenant("pb-x"), uniqueTenant("pb-y")] as const;
        await Promise.all(tenants.map((t) => insert(db, t, ["seed"])));
        const written = new Map<string, string[]>(tenants.map((t) => [t, ["seed"]]));
        const answers = await Promise.all(
          Array.from({ length: 30 }, async (_, i) => {
            const tenant = tenants[i % 2]!;
            if (i % 3 === 0) {
              const code = `w${i}`;
              await insert(db, tenant, [code]);
              written.get(tenant)!.push(code);
              // the write's own transaction reads back what it sees, in the same pooled session
              return {
                tenant,
                rows: await inTenant(db, tenant, (tx) =>
                  tx.query<{ tenant_id: string; code: string }>(sql`SELECT tenant_id, code FROM pb_item`),
                ),
              };
            }
            return { tenant, rows: await everyRow(db, tenant) };
          }),
        );
        for (const { tenant, rows } of answers) {
          expect(rows.length).toBeGreaterThan(0);
          expect(rows.every((r) => r.tenant_id === tenant)).toBe(true);
        }
        for (const tenant of tenants)
          expect((await everyRow(db, tenant)).map((r) => r.code).sort()).toEqual(written.get(tenant)!.sort());
      });
    });
  }

  it("refuses a row of another tenant in the application role, whatever role PgBouncer connects as", async () => {
    for (const db of Object.values(dbs)) {
      const [mine, other] = [uniqueTenant("pb"), uniqueTenant("pb")];
      await expect(
        inTenant(db, mine, (tx) =>
          tx.query(sql`INSERT INTO pb_item (tenant_id, guid, code) VALUES (${other}, ${crypto.randomUUID()}, 'X')`),
        ),
      ).rejects.toThrow(/row-level security/);
      expect(await everyRow(db, other)).toEqual([]);
    }
  });
});
