import { randomUUID } from "node:crypto";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import type { Database, Session } from "./database.js";
import { migrate } from "./migrate.js";
import { loadRecords } from "./record-store.js";
import { inTenant } from "./tenant-scope.js";
import { writeBehind } from "./write-behind.js";

// two entities that refer to each other: no order of their tables suits every record
const Left = entity("WbLeft", {
  naturalKey: "Name",
  fields: { Name: text({ required: true }), Right: reference("WbRight") },
});
const Right = entity("WbRight", {
  naturalKey: "Name",
  fields: { Name: text({ required: true }), Left: reference("WbLeft") },
});
const model = defineModel([Left, Right]);

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

/** `tx` recording the statements it runs */
const recorded = (tx: Session, log: string[]): Session => ({
  query: (statement) => {
    log.push("sql" in statement ? statement.sql : "drizzle");
    return tx.query(statement);
  },
  store: tx.store,
});

const record = (name: string, refs: Record<string, string> = {}) => ({ Guid: randomUUID(), Name: name, ...refs });

describe("write-behind", () => {
  it("keeps inserts until another statement runs, then sends them with one statement per entity", async () => {
    const tenant = uniqueTenant("wb");
    const log: string[] = [];
    const a = record("a");
    const b = record("b");
    const c = record("c", { Left: a.Guid });
    const seen = await inTenant(
      db,
      tenant,
      async (tx) => {
        const writes = writeBehind(recorded(tx, log));
        const { store } = writes.session;
        await store.insert(writes.session, Left, tenant, [a]);
        await store.insert(writes.session, Right, tenant, [c]);
        await store.insert(writes.session, Left, tenant, [b]);
        const before = log.length;
        // any statement sees every insert made before it
        const found = await loadRecords(writes.session, Left, tenant, [a.Guid, b.Guid]);
        return { before, found: found.map((r) => r.Name).sort() };
      },
      { deferInserts: false },
    );
    expect(seen.before).toBe(0);
    expect(seen.found).toEqual(["a", "b"]);
    // Left (a and b together), Right, then the load
    expect(log).toHaveLength(3);
  });

  it("sends what waits first when a record refers to a waiting record of a later group", async () => {
    const tenant = uniqueTenant("wb");
    const log: string[] = [];
    const l1 = record("l1");
    const r1 = record("r1", { Left: l1.Guid });
    // Left's group comes first, yet l2 refers to r1 of the group after it
    const l2 = record("l2", { Right: r1.Guid });
    await inTenant(
      db,
      tenant,
      async (tx) => {
        const writes = writeBehind(recorded(tx, log));
        const { store } = writes.session;
        await store.insert(writes.session, Left, tenant, [l1]);
        await store.insert(writes.session, Right, tenant, [r1]);
        await store.insert(writes.session, Left, tenant, [l2]);
        await writes.flush();
      },
      { deferInserts: false },
    );
    expect(log).toHaveLength(3);
    const stored = await inTenant(db, tenant, (tx) => loadRecords(tx, Left, tenant, [l2.Guid]));
    expect(stored[0]?.Right).toBe(r1.Guid);
  });

  it("fails the statement that sends a failing insert, and says that it failed", async () => {
    const tenant = uniqueTenant("wb");
    const a = record("a");
    let seen: { failedBefore: boolean; code: unknown; failed: boolean } | undefined;
    await inTenant(
      db,
      tenant,
      async (tx) => {
        const writes = writeBehind(tx);
        const { store } = writes.session;
        await store.insert(writes.session, Left, tenant, [a, { ...a, Name: "twice" }]);
        const failedBefore = writes.failed;
        const code = await writes.flush().then(
          () => undefined,
          (err: { code?: string }) => err.code,
        );
        seen = { failedBefore, code, failed: writes.failed };
      },
      { deferInserts: false },
    ).catch(() => undefined);
    expect(seen).toEqual({ failedBefore: false, code: "23505", failed: true });
  });
});
