/**
 * A tenant transaction's set-up (role and tenant) travels with BEGIN and the first statement, and
 * a one-statement read's COMMIT with them: one round trip. These tests hold it to what waiting for
 * each statement gave: row-level security applies to a statement without a tenant predicate, a
 * failed set-up fails the statement instead of letting it run as the connection's own role, and
 * the connection is handed back with no transaction, role or tenant left on it. The database has
 * one connection, so every statement meets the connection the one before it left.
 */

import { uniqueTenant } from "@bizdata/test-kit/database";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { type Database, type Statement, type TransactionOptions, toQuery } from "./database.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open-database.js";
import { insertRecords } from "./record-store.js";
import { APP_ROLE } from "./tenant-policy.js";
import { inTenant } from "./tenant-scope.js";

const Secret = entity("TtSecret", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const Note = entity("TtNote", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const model = defineModel([Secret, Note]);

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ url: process.env.DATABASE_URL || "memory://", max: 1 });
  await migrate(db, model);
});
afterAll(() => db.close());

const onPostgres = Boolean(process.env.DATABASE_URL);

const READ: TransactionOptions = { readOnly: true, oneStatement: true };
const read = <R = Record<string, unknown>>(tenant: string, statement: Statement) =>
  inTenant(db, tenant, (tx) => tx.query<R>(statement), READ);

/** the plan mode a statement runs under, unmarked and marked to be planned for its values */
const MODE = sql`SELECT current_setting('plan_cache_mode') AS mode`;
const MODE_FOR_VALUES = { ...toQuery(MODE), planForValues: true };
const CACHED = [{ mode: "auto" }];
const FOR_VALUES = [{ mode: "force_custom_plan" }];

/**
 * What the connections carry between transactions: the owner's (PGlite's one), and on PostgreSQL
 * whether a tenant transaction was left open on the tenant pool's connection, which then would
 * swallow the next one (its BEGIN only warns)
 */
const connectionState = async () => {
  const [row] = await db.query<{ tenant: string | null; role: string }>(
    sql`SELECT current_setting('app.tenant_id', true) AS tenant, current_user AS role`,
  );
  // a savepoint outside a transaction block is refused: it succeeds only in a transaction left open
  const inTransaction = await db.query(sql`SAVEPOINT tt_probe`).then(
    () => true,
    () => false,
  );
  return {
    tenant: row!.tenant || null,
    app: row!.role === APP_ROLE,
    inTransaction: inTransaction || (await leftOpen()),
  };
};

/**
 * Whether a tenant transaction began before now: inside one left open, a new transaction's now()
 * is that one's start. The pause puts any such start a whole millisecond before `since`.
 */
const leftOpen = async () => {
  await new Promise((resolve) => setTimeout(resolve, 2));
  const since = new Date().toISOString();
  const [row] = await inTenant(db, "tt-probe", (tx) =>
    tx.query<{ fresh: boolean }>(sql`SELECT now() >= ${since}::timestamptz AS fresh`),
  );
  return !row!.fresh;
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

  // PGlite sends every statement unnamed, planned for its values each time whatever the setting;
  // the database has one connection per pool, so each read meets the session the one before left
  it.skipIf(!onPostgres)(
    "runs on cached plans, or on plans made for its values when its statement asks (a generic plan can be far slower)",
    async () => {
      const { a } = await seeded();
      for (const [statement, expected] of [
        [MODE, CACHED],
        [MODE_FOR_VALUES, FOR_VALUES],
        [MODE_FOR_VALUES, FOR_VALUES],
        [MODE, CACHED],
        [MODE, CACHED],
        [MODE_FOR_VALUES, FOR_VALUES],
      ] as const)
        expect(await read(a, statement)).toEqual(expected);
      expect(await connectionState()).toEqual(CLEAN);
    },
  );

  it.skipIf(!onPostgres)(
    "is planned as it asks and sees only its tenant, thirty at once taking turns on the sessions",
    async () => {
      const { a, b } = await seeded();
      const asked = (i: number) => ({
        sql: `SELECT current_setting('plan_cache_mode') AS mode, current_setting('app.tenant_id', true) AS tenant, count(*)::int AS n FROM tt_secret WHERE code <> $1`,
        params: [`x${i}`],
        ...(i % 3 === 0 && { planForValues: true }),
      });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => read(i % 2 ? a : b, asked(i))));
      expect(answers).toEqual(
        Array.from({ length: 30 }, (_, i) => [
          { mode: i % 3 === 0 ? "force_custom_plan" : "auto", tenant: i % 2 ? a : b, n: i % 2 ? 1 : 2 },
        ]),
      );
    },
  );

  it.skipIf(!onPostgres)("fails with a read's own error and plans the next one as it asks", async () => {
    const { a, b } = await seeded();
    const failing = { sql: "SELECT code::int FROM tt_secret", params: [], planForValues: true };
    await expect(read(a, failing)).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await read(a, MODE)).toEqual(CACHED);
    await expect(read(b, failing)).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await read(a, MODE_FOR_VALUES)).toEqual(FOR_VALUES);
    expect(await read(a, sql`SELECT current_setting('app.tenant_id', true) AS tenant`)).toEqual([{ tenant: a }]);
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

  it("runs in the application role, read-only, with its tenant, however the tenants alternate", async () => {
    const { a, b } = await seeded();
    const state = sql`SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant,
      current_setting('transaction_read_only') AS "readOnly", (SELECT count(*)::int FROM tt_secret) AS n`;
    // one connection: each read meets the session the read before it left, set for the other tenant or the same
    for (const tenant of [a, b, b, a, b, a, a])
      expect(await read(tenant, state)).toEqual([{ role: APP_ROLE, tenant, readOnly: "on", n: tenant === a ? 1 : 2 }]);
    expect(await connectionState()).toEqual(CLEAN);
  });

  it.runIf(onPostgres)("sets the tenant again on a connection that reconnected to a new session", async () => {
    const { a, b } = await seeded();
    const who = sql`SELECT pg_backend_pid() AS pid, current_setting('app.tenant_id', true) AS tenant,
      (SELECT count(*)::int FROM tt_secret) AS n`;
    for (const tenant of [a, b]) {
      const [before] = await read<{ pid: number }>(tenant, who);
      await db.query(sql`SELECT pg_terminate_backend(${before!.pid})`);
      // the read that meets the dead session fails; the pool reconnects and the next one succeeds
      let after: { pid: number; tenant: string; n: number } | undefined;
      for (let attempt = 0; after === undefined && attempt < 50; attempt++)
        after = await read<{ pid: number; tenant: string; n: number }>(tenant, who).then(
          ([row]) => row,
          () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20)),
        );
      expect(after).toEqual({ pid: expect.any(Number), tenant, n: tenant === a ? 1 : 2 });
      expect(after!.pid).not.toBe(before!.pid);
    }
  });

  it("ends its transaction when the work sends no statement", async () => {
    const { a } = await seeded();
    expect(await inTenant(db, a, async () => 42, READ)).toBe(42);
    expect(await connectionState()).toEqual(CLEAN);
  });
});

describe("a tenant transaction of several statements", () => {
  // forced custom plans hold for the plans of the foreign-key checks too, which then plan their
  // lookup again for every row inserted
  it("leaves PostgreSQL its choice of cached plans, so its foreign-key checks keep theirs", async () => {
    const a = uniqueTenant("tt-w");
    const rows = await inTenant(db, a, (tx) =>
      tx.query<{ mode: string }>(sql`SELECT current_setting('plan_cache_mode') AS mode`),
    );
    expect(rows).toEqual([{ mode: "auto" }]);
  });

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

  it("sends its last inserts with its COMMIT: all of them are stored, or none when one fails", async () => {
    const a = uniqueTenant("tt-c");
    const codes = async () =>
      (
        await read<{ code: string }>(a, sql`SELECT code FROM tt_secret UNION ALL SELECT code FROM tt_note ORDER BY 1`)
      ).map((r) => r.code);
    // inserts through the store wait for the end of the work: two tables, two statements, then COMMIT
    const create = (secret: string, note: string) =>
      inTenant(db, a, async (tx) => {
        await tx.store.insert(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: secret }]);
        await tx.store.insert(tx, Note, a, [{ Guid: crypto.randomUUID(), Code: note }]);
      });
    await create("S1", "N1");
    expect(await codes()).toEqual(["N1", "S1"]);
    // the second statement fails (N1 exists): the first one's row must not be stored either
    await expect(create("S2", "N1")).rejects.toThrow(/duplicate key|unique/);
    expect(await connectionState()).toEqual(CLEAN);
    expect(await codes()).toEqual(["N1", "S1"]);
  });

  it("runs in the application role, and stores each write under its tenant however the tenants alternate", async () => {
    const [a, b] = [uniqueTenant("tt-wa"), uniqueTenant("tt-wb")];
    const codes = async (tenant: string) =>
      (await read<{ code: string }>(tenant, sql`SELECT code FROM tt_secret ORDER BY code`)).map((r) => r.code);
    const written: Record<string, string[]> = { [a]: [], [b]: [] };
    // one connection: each write meets the session the write before it left, set for the other tenant or the same
    for (const [i, tenant] of [a, b, b, a, a, b, a].entries()) {
      const code = `W${i}`;
      const [state] = await inTenant(db, tenant, async (tx) => {
        await tx.store.insert(tx, Secret, tenant, [{ Guid: crypto.randomUUID(), Code: code }]);
        return tx.query<{ role: string; tenant: string }>(
          sql`SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant`,
        );
      });
      expect(state).toEqual({ role: APP_ROLE, tenant });
      // a write whose one statement is its last one (a create's insert), alone or not
      await inTenant(db, tenant, (tx) =>
        tx.store.insert(tx, Secret, tenant, [{ Guid: crypto.randomUUID(), Code: `${code}x` }]),
      );
      written[tenant]!.push(code, `${code}x`);
    }
    expect(await codes(a)).toEqual(written[a]!.sort());
    expect(await codes(b)).toEqual(written[b]!.sort());
    expect(await connectionState()).toEqual(CLEAN);
  });

  it("refuses a row of another tenant, however its statement is sent", async () => {
    const [a, b] = [uniqueTenant("tt-xa"), uniqueTenant("tt-xb")];
    const foreign = () => sql`INSERT INTO tt_secret (tenant_id, guid, code) VALUES (${b}, ${crypto.randomUUID()}, 'X')`;
    for (let attempt = 0; attempt < 2; attempt++) {
      // alone, on a session that holds the tenant after the first attempt, and behind another statement
      await expect(inTenant(db, a, (tx) => tx.query(foreign()), { deferInserts: false })).rejects.toThrow(
        /row-level security/,
      );
      await expect(
        inTenant(db, a, async (tx) => {
          await tx.query(sql`SELECT 1`);
          await tx.query(foreign());
        }),
      ).rejects.toThrow(/row-level security/);
      await inTenant(db, a, (tx) =>
        tx.store.insert(tx, Secret, a, [{ Guid: crypto.randomUUID(), Code: `A${attempt}` }]),
      );
    }
    expect(await read(b, sql`SELECT code FROM tt_secret`)).toEqual([]);
    expect(await read(a, sql`SELECT code FROM tt_secret ORDER BY code`)).toEqual([{ code: "A0" }, { code: "A1" }]);
  });

  it("keeps nothing of a failed write, and sets the tenant again after a failure where it was set", async () => {
    const [a, b] = [uniqueTenant("tt-fa"), uniqueTenant("tt-fb")];
    const create = (tenant: string, code: string) =>
      inTenant(db, tenant, (tx) => tx.store.insert(tx, Secret, tenant, [{ Guid: crypto.randomUUID(), Code: code }]));
    await create(a, "A1");
    // fails (A1 exists) in the transaction that set tenant a on a session that held b
    await create(b, "B1");
    await expect(create(a, "A1")).rejects.toThrow(/duplicate key|unique/);
    // the failed transaction's setting rolled back with it: the session holds b, and this write is a's
    await create(a, "A2");
    await expect(create(a, "A2")).rejects.toThrow(/duplicate key|unique/);
    await create(b, "B2");
    expect(await read(a, sql`SELECT code FROM tt_secret ORDER BY code`)).toEqual([{ code: "A1" }, { code: "A2" }]);
    expect(await read(b, sql`SELECT code FROM tt_secret ORDER BY code`)).toEqual([{ code: "B1" }, { code: "B2" }]);
  });

  it.runIf(onPostgres)("sends a write's one last statement alone on a session that holds its tenant", async () => {
    const [a, b] = [uniqueTenant("tt-one"), uniqueTenant("tt-two")];
    // VACUUM refuses to run in a transaction block: it succeeds only where it goes alone
    const vacuum = sql`VACUUM tt_secret`;
    const last = (tenant: string, statements: SQL[]) =>
      db.transaction((tx) => tx.commitWith!(statements), { tenant, setup: sql`SELECT 1` });
    // the session holds another tenant: set in a transaction, which the statement goes behind
    await expect(last(a, [vacuum])).rejects.toThrow(/transaction block/);
    await last(a, [sql`SELECT 1`]);
    await expect(last(a, [vacuum])).resolves.toBeUndefined();
    // more than one statement, or one after others, go in the transaction
    await expect(last(a, [vacuum, sql`SELECT 1`])).rejects.toThrow(/transaction block/);
    await expect(
      db.transaction(
        async (tx) => {
          await tx.query(sql`SELECT 1`);
          await tx.commitWith!([vacuum]);
        },
        { tenant: a, setup: sql`SELECT 1` },
      ),
    ).rejects.toThrow(/transaction block/);
    // once the session is set for another tenant, a write of this one goes behind the set-up again
    await last(b, [sql`SELECT 1`]);
    await expect(last(a, [vacuum])).rejects.toThrow(/transaction block/);
  });

  it.runIf(onPostgres)("sets the tenant again for a write on a connection that reconnected", async () => {
    const [a, b] = [uniqueTenant("tt-ra"), uniqueTenant("tt-rb")];
    const who = (tenant: string, code: string) =>
      inTenant(db, tenant, async (tx) => {
        await tx.store.insert(tx, Secret, tenant, [{ Guid: crypto.randomUUID(), Code: code }]);
        return (await tx.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`))[0]!.pid;
      });
    for (const [i, tenant] of [a, b, b].entries()) {
      const before = await who(tenant, `${tenant}-before-${i}`);
      await db.query(sql`SELECT pg_terminate_backend(${before})`);
      let after: number | undefined;
      for (let attempt = 0; after === undefined && attempt < 50; attempt++)
        after = await who(tenant, `${tenant}-after-${i}-${attempt}`).catch(
          () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20)),
        );
      expect(after).not.toBe(before);
      // alone on the new session, which holds the tenant now
      await inTenant(db, tenant, (tx) =>
        tx.store.insert(tx, Secret, tenant, [{ Guid: crypto.randomUUID(), Code: `alone-${i}` }]),
      );
    }
    const codes = async (tenant: string) =>
      (await read<{ code: string }>(tenant, sql`SELECT code FROM tt_secret`)).map((r) => r.code);
    expect((await codes(a)).every((code) => code === "alone-0" || code.startsWith(a))).toBe(true);
    expect(await codes(b)).toEqual(expect.arrayContaining(["alone-1", "alone-2"]));
    expect((await codes(b)).every((code) => code.startsWith("alone-") || code.startsWith(b))).toBe(true);
  });

  it("cannot write in a read-only transaction of several statements", async () => {
    const a = uniqueTenant("tt-ro");
    await expect(
      inTenant(
        db,
        a,
        async (tx) => {
          await tx.query(sql`SELECT 1`);
          await tx.query(sql`INSERT INTO tt_secret (tenant_id, guid, code) VALUES (${a}, ${crypto.randomUUID()}, 'R')`);
        },
        { readOnly: true },
      ),
    ).rejects.toThrow(/read-only/);
    expect(await read(a, sql`SELECT code FROM tt_secret`)).toEqual([]);
  });

  // a read of several statements runs on the read sessions, a writing transaction on the write
  // sessions, which keep PostgreSQL's cached plans for the foreign-key checks' sake
  it.runIf(onPostgres)(
    "plans a statement that asks for its values so, in read-only and writing transactions alike",
    async () => {
      const a = uniqueTenant("tt-ro");
      const modes = (options: { readOnly?: boolean }) =>
        inTenant(
          db,
          a,
          async (tx) => [
            ...(await tx.query(sql`SELECT count(*) FROM tt_secret`)).map(() => "counted"),
            ...(await tx.query<{ mode: string }>(MODE_FOR_VALUES)).map((r) => r.mode),
            ...(await tx.query<{ mode: string }>(MODE)).map((r) => r.mode),
          ],
          options,
        );
      // the read sessions take turns with one-statement reads, which leave them planning either way
      for (const before of [MODE, MODE_FOR_VALUES]) {
        await read(a, before);
        expect((await modes({ readOnly: true })).slice(0, 2)).toEqual(["counted", "force_custom_plan"]);
        // a writing transaction's statements after it, and its foreign-key checks, on cached plans
        expect(await modes({})).toEqual(["counted", "force_custom_plan", "auto"]);
      }
    },
  );

  // a compiled read inside a workflow step or a changeset: after five runs of a prepared statement
  // PostgreSQL may switch to a generic plan, which for a path filter ran 8x slower
  it.runIf(onPostgres)(
    "plans a read marked for its values at every run in a writing transaction, and the statements after it as before",
    async () => {
      const a = uniqueTenant("tt-pv");
      const text = (marked: boolean) => `SELECT code FROM tt_secret WHERE code = $1 /* tt-pv ${marked} */`;
      const run = (marked: boolean) =>
        inTenant(db, a, async (tx) => {
          await tx.query({ sql: text(marked), params: ["A1"], ...(marked && { planForValues: true }) });
          return tx.query<{ mode: string }>(sql`SELECT current_setting('plan_cache_mode') AS mode`);
        });
      for (let i = 0; i < 8; i++) {
        expect(await run(true)).toEqual([{ mode: "auto" }]);
        expect(await run(false)).toEqual([{ mode: "auto" }]);
      }
      // the one connection's prepared statements (the database has one per pool)
      const plans = await inTenant(db, a, (tx) =>
        tx.query<{ statement: string; generic: number; custom: number }>(
          sql`SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
              FROM pg_prepared_statements WHERE statement LIKE '%/* tt-pv %'`,
        ),
      );
      const of = (marked: boolean) => plans.find((p) => p.statement === text(marked));
      expect(of(true)).toMatchObject({ generic: 0, custom: 8 });
      // what the mark prevents: the same read unmarked goes generic
      expect(of(false)?.generic).toBeGreaterThan(0);
    },
  );

  it.runIf(onPostgres)(
    "fails with a marked read's own error, not the aborted transaction's, and keeps nothing of it",
    async () => {
      const a = uniqueTenant("tt-pv");
      const failing = {
        sql: "SELECT code::int FROM tt_secret WHERE code = $1",
        params: ["not a number"],
        planForValues: true,
      };
      await expect(
        inTenant(db, a, async (tx) => {
          await tx.query(
            sql`INSERT INTO tt_secret (tenant_id, guid, code) VALUES (${a}, ${crypto.randomUUID()}, 'not a number')`,
          );
          await tx.query(failing);
        }),
      ).rejects.toThrow(/invalid input syntax for type integer/);
      expect(await read(a, sql`SELECT code FROM tt_secret`)).toEqual([]);
      expect(await connectionState()).toEqual(CLEAN);
    },
  );

  it.runIf(onPostgres)("refuses a statement after its last ones, and commits nothing more", async () => {
    const a = uniqueTenant("tt-l");
    // the tenant set-up as inTenant sends it: the transaction that offers commitWith
    const setup = sql`SELECT set_config('role', ${APP_ROLE}, true), set_config('app.tenant_id', ${a}, true)`;
    const insert = (code: string) =>
      sql`INSERT INTO tt_secret (tenant_id, guid, code) VALUES (${a}, ${crypto.randomUUID()}, ${code})`;
    await expect(
      db.transaction(
        async (tx) => {
          await tx.commitWith!([insert("L1")]);
          await tx.query(insert("L2"));
        },
        { setup },
      ),
    ).rejects.toThrow(/A statement after the transaction's last ones: INSERT INTO tt_secret/);
    expect(await connectionState()).toEqual(CLEAN);
    expect(await read(a, sql`SELECT code FROM tt_secret`)).toEqual([{ code: "L1" }]);
  });
});

describe("work outside a tenant", () => {
  // the owner's sessions have no tenant or mode to switch: a statement that asks goes unnamed,
  // which PostgreSQL plans for its values at every run and keeps nothing of
  it.runIf(onPostgres)(
    "plans a statement that asks for its values at every run, and caches the others' plans",
    async () => {
      const text = (marked: boolean) =>
        `SELECT count(*)::int AS n FROM tt_secret WHERE code = $1 /* tt-ow ${marked} */`;
      for (let i = 0; i < 8; i++) {
        for (const marked of [true, false]) {
          const statement = { sql: text(marked), params: ["A1"], ...(marked && { planForValues: true }) };
          expect(await db.query(statement)).toEqual([{ n: expect.any(Number) }]);
          expect(await db.transaction((tx) => tx.query(statement))).toEqual([{ n: expect.any(Number) }]);
        }
      }
      // the owner's one connection
      const plans = await db.query<{ statement: string; generic: number; custom: number }>(
        sql`SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom
            FROM pg_prepared_statements WHERE statement LIKE '%/* tt-ow %'`,
      );
      expect(plans.map((p) => p.statement)).toEqual([text(false)]);
      expect(plans[0]!.generic).toBeGreaterThan(0);
    },
  );
});
