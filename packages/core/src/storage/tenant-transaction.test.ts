/**
 * A tenant transaction's set-up (role and tenant) travels with BEGIN and the first statement, and
 * a one-statement read's COMMIT with them: one round trip. These tests hold it to what waiting for
 * each statement gave: row-level security applies to a statement without a tenant predicate, a
 * failed set-up fails the statement instead of letting it run as the connection's own role, and
 * the connection is handed back with no transaction, role or tenant left on it. The database has
 * one connection, so every statement meets the connection the one before it left.
 */
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueTenant } from "../../../../test/database.js";
import { entity } from "../model/entity.js";
import { text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database, TransactionOptions } from "./database.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open-database.js";
import { insertRecords } from "./record-store.js";
import { APP_ROLE } from "./tenant-policy.js";
import { inTenant } from "./tenant-scope.js";

const Secret = entity("TtSecret", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const model = defineModel([Secret]);

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ url: process.env.DATABASE_URL || "memory://", max: 1 });
  await migrate(db, model);
});
afterAll(() => db.close());

const READ: TransactionOptions = { readOnly: true, oneStatement: true };
const read = <R = Record<string, unknown>>(tenant: string, statement: SQL) =>
  inTenant(db, tenant, (tx) => tx.query<R>(statement), READ);

/** what the one connection carries between transactions */
const connectionState = async () => {
  const [row] = await db.query<{ tenant: string | null; role: string }>(
    sql`SELECT current_setting('app.tenant_id', true) AS tenant, current_user AS role`,
  );
  // a savepoint outside a transaction block is refused: it succeeds only in a transaction left open
  const inTransaction = await db.query(sql`SAVEPOINT tt_probe`).then(
    () => true,
    () => false,
  );
  return { tenant: row!.tenant || null, app: row!.role === APP_ROLE, inTransaction };
};
const CLEAN = { tenant: null, app: false, inTransaction: false };

const seeded = async () => {
  const [a, b] = [uniqueTenant("tt-a"), uniqueTenant("tt-b")];
  await inTenant(db, a, (tx) => insertRecords(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: "A1" }]));
  await inTenant(db, b, (tx) =>
    insertRecords(tx, Secret, b, [
      { Guid: crypto.randomUUID(), Code: "B1" },
      { Guid: crypto.randomUUID(), Code: "B2" },
    ]),
  );
  return { a, b };
};

describe("a one-statement tenant read", () => {
  it("(the probe of the connection's state tells an open transaction)", async () => {
    await expect(db.transaction((tx) => tx.query(sql`SAVEPOINT tt_probe`))).resolves.toEqual([]);
    await expect(db.query(sql`SAVEPOINT tt_probe`)).rejects.toThrow(/transaction block/);
  });

  it("sees only its tenant's rows, even through SQL without a tenant predicate", async () => {
    const { a, b } = await seeded();
    const codes = (rows: { code: string }[]) => rows.map((r) => r.code).filter((c) => /^[AB]\d$/.test(c));
    expect(codes(await read<{ code: string }>(a, sql`SELECT code FROM tt_secret ORDER BY code`))).toEqual(["A1"]);
    expect(codes(await read<{ code: string }>(b, sql`SELECT code FROM tt_secret ORDER BY code`))).toEqual(["B1", "B2"]);
    const [counted] = await read(b, sql`SELECT count(*)::int AS n FROM tt_secret WHERE tenant_id <> ${b}`);
    expect(counted).toEqual({ n: 0 });
    expect(await connectionState()).toEqual(CLEAN);
  });

  it("fails with the set-up's error when the set-up fails, and returns nothing", async () => {
    await seeded();
    // without the set-up the connection's own role (the owner or a superuser) would see every tenant
    const setup = { sql: "SELECT set_config('role', 'tt_no_such_role', true)", params: [] };
    for (const options of [{ ...READ, setup }, { setup }]) {
      await expect(db.transaction((tx) => tx.query(sql`SELECT code FROM tt_secret`), options)).rejects.toThrow(
        /tt_no_such_role/,
      );
      expect(await connectionState()).toEqual(CLEAN);
    }
  });

  it("rolls back a failing statement and leaves the connection ready for the next read", async () => {
    const { a } = await seeded();
    await expect(read(a, sql`SELECT 1 / (count(*) - count(*)) FROM tt_secret`)).rejects.toThrow(/division by zero/);
    expect(await connectionState()).toEqual(CLEAN);
    expect(await read(a, sql`SELECT current_setting('app.tenant_id', true) AS tenant`)).toEqual([{ tenant: a }]);
  });

  it("plans its statement for the values it is given (a generic plan can be far slower)", async () => {
    const { a } = await seeded();
    expect(await read(a, sql`SELECT current_setting('plan_cache_mode') AS mode`)).toEqual([
      { mode: "force_custom_plan" },
    ]);
  });

  it("cannot write", async () => {
    const { a } = await seeded();
    await expect(
      read(a, sql`INSERT INTO tt_secret (tenant_id, guid, code) VALUES (${a}, ${crypto.randomUUID()}, 'W')`),
    ).rejects.toThrow(/read-only/);
    expect(await connectionState()).toEqual(CLEAN);
  });

  it("refuses a second statement, naming it", async () => {
    const { a } = await seeded();
    await expect(
      inTenant(
        db,
        a,
        async (tx) => {
          await tx.query(sql`SELECT 1 AS one`);
          return tx.query(sql`SELECT 2 AS two`);
        },
        READ,
      ),
    ).rejects.toThrow(/one-statement transaction was asked for a second statement: SELECT 2 AS two/);
    expect(await connectionState()).toEqual(CLEAN);
  });

  it("ends its transaction when the work sends no statement", async () => {
    const { a } = await seeded();
    expect(await inTenant(db, a, async () => 42, READ)).toBe(42);
    expect(await connectionState()).toEqual(CLEAN);
  });
});

describe("a tenant transaction of several statements", () => {
  it("commits them together, and rolls all of them back when the work throws", async () => {
    const a = uniqueTenant("tt-w");
    await inTenant(db, a, async (tx) => {
      await insertRecords(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: "W1" }]);
      await insertRecords(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: "W2" }]);
    });
    await expect(
      inTenant(db, a, async (tx) => {
        await insertRecords(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: "W3" }]);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await connectionState()).toEqual(CLEAN);
    const rows = await read(a, sql`SELECT code FROM tt_secret ORDER BY code`);
    expect(rows).toEqual([{ code: "W1" }, { code: "W2" }]);
  });
});
