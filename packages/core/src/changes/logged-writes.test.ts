import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { collection, complex, decimal, duration, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database, Session } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { withStore } from "../storage/record-port.js";
import { tableStore } from "../storage/record-store.js";
import { inTenant } from "../storage/tenant-scope.js";
import { createRecord, createRecords, deleteRecord, saveChanges, updateRecord } from "../write/write-record.js";
import { type ChangeRow, readChanges } from "./change-reads.js";
import { changeSource } from "./change-source.js";

const Note = entity("LwNote", {
  naturalKey: "Guid",
  fields: { Line: reference("LwLine", { required: true }), Text: text() },
});
const Line = entity("LwLine", {
  naturalKey: "Guid",
  fields: {
    Doc: reference("LwDoc", { required: true }),
    Qty: decimal(),
    Notes: collection(Note, { inverse: "Line" }),
  },
});
const Doc = entity("LwDoc", {
  naturalKey: "Number",
  fields: { Number: text({ required: true }), Note: text(), Lines: collection(Line, { inverse: "Doc" }) },
});
const Part = entity("LwPart", {
  naturalKey: "Code",
  changeLog: "values",
  fields: {
    Code: text({ required: true }),
    Price: decimal(),
    Lead: duration(),
    Origin: complex({ City: text(), Zip: text() }),
  },
});
const model = defineModel([Note, Line, Doc, Part]);
const ENTITIES = ["LwNote", "LwLine", "LwDoc", "LwPart"];

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

const author = { actor: "alice", requestId: "req-1" };

/** runs `fn` with a write context of tenant `t`, its changes by `author` */
function write<T>(
  t: string,
  fn: (ctx: Parameters<typeof createRecord>[0]) => Promise<T>,
  session?: (tx: Session) => Session,
) {
  return inTenant(
    db,
    t,
    (tx) =>
      fn({
        session: session ? session(tx) : tx,
        model,
        tenant: { id: t, features: new Set() },
        prompts: new PromptCollector(),
      }),
    { changes: changeSource(model, author) },
  );
}

/** the tenant's change log, in its order */
const changesOf = async (t: string): Promise<ChangeRow[]> => {
  await changesSettled(db);
  return (await inTenant(db, t, (tx) => readChanges(tx, t, { entities: ENTITIES, from: "0", limit: 1000 }))).rows;
};

/** what a row says, for comparing */
const said = ({ entity, key, owner, kind, properties }: ChangeRow) => ({ entity, key, owner, kind, properties });

describe("the change log of the write pipeline", () => {
  it("logs a created record and every owned item of every level, with the author, in one transaction", async () => {
    const t = uniqueTenant();
    const doc = await write(t, (ctx) =>
      createRecord(ctx, Doc, { Number: "D1", Lines: [{ Qty: 1, Notes: [{ Text: "a" }, { Text: "b" }] }, { Qty: 2 }] }),
    );
    const rows = await changesOf(t);
    const lines = rows.filter((r) => r.entity === "LwLine");
    expect(rows.map(said)).toEqual(
      expect.arrayContaining([
        { entity: "LwDoc", key: doc, owner: null, kind: "create", properties: null },
        ...lines.map((l) => ({ entity: "LwLine", key: l.key, owner: doc, kind: "create", properties: null })),
      ]),
    );
    expect(lines).toHaveLength(2);
    const notes = rows.filter((r) => r.entity === "LwNote");
    expect(notes).toHaveLength(2);
    expect(new Set(notes.map((n) => n.owner))).toEqual(new Set([lines.find((l) => notes[0]!.owner === l.key)!.key]));
    expect(new Set(rows.map((r) => r.xid)).size).toBe(1);
    expect(new Set(rows.map((r) => `${r.actor} ${r.requestId}`))).toEqual(new Set(["alice req-1"]));
    // the sequence orders the rows of the transaction: owners before their items, as they were inserted
    expect(rows[0]!.entity).toBe("LwDoc");
  });

  it("logs an update's changed properties only, and nothing for one that changed nothing", async () => {
    const t = uniqueTenant();
    const doc = await write(t, (ctx) => createRecord(ctx, Doc, { Number: "D1", Note: "x" }));
    await write(t, (ctx) => updateRecord(ctx, Doc, doc, { Note: "y" }));
    await write(t, (ctx) => updateRecord(ctx, Doc, doc, { Note: "y" }));
    await write(t, (ctx) => saveChanges(ctx, Doc, doc, { Number: "D2", Note: "z" }));
    const rows = (await changesOf(t)).filter((r) => r.kind === "update");
    expect(rows.map((r) => r.properties)).toEqual([["Note"], ["Number", "Note"]]);
    expect(rows.map((r) => r.data)).toEqual([null, null]);
  });

  it("keeps the values of an entity that keeps them: all of a created record, an update's changed ones", async () => {
    const t = uniqueTenant();
    const part = await write(t, (ctx) =>
      createRecord(ctx, Part, { Code: "P1", Price: 2.5, Lead: "P1DT2H", Origin: { City: "Köln" } }),
    );
    await write(t, (ctx) => updateRecord(ctx, Part, part, { Price: 3, Origin: { Zip: "50667" } }));
    const [created, updated] = await changesOf(t);
    expect(created!.data).toEqual({
      Guid: part,
      Title: null,
      Code: "P1",
      Price: 2.5,
      Lead: "P1DT2H",
      Origin: { City: "Köln", Zip: null },
    });
    expect(updated).toMatchObject({ kind: "update", properties: ["Price", "Origin"] });
    expect(updated!.data).toEqual({ Price: 3, Origin: { City: "Köln", Zip: "50667" } });
  });

  it("logs items a deep update removes and adds, each with its owner, and the items a delete takes with it", async () => {
    const t = uniqueTenant();
    const doc = await write(t, (ctx) =>
      createRecord(ctx, Doc, { Number: "D1", Lines: [{ Qty: 1, Notes: [{ Text: "a" }] }, { Qty: 2 }] }),
    );
    const created = await changesOf(t);
    const [kept, dropped] = created.filter((r) => r.entity === "LwLine").map((r) => r.key);
    const note = created.find((r) => r.entity === "LwNote")!.key;
    const keptNote = created.find((r) => r.entity === "LwNote")!.owner === kept;
    // the line with the note is kept: the other goes, one comes
    const keep = keptNote ? kept! : dropped!;
    const drop = keptNote ? dropped! : kept!;
    await write(t, (ctx) => updateRecord(ctx, Doc, doc, { Lines: [{ Guid: keep }, { Qty: 5 }] }));
    const update = (await changesOf(t)).slice(created.length);
    expect(update.map(said)).toEqual(
      expect.arrayContaining([
        { entity: "LwLine", key: drop, owner: doc, kind: "delete", properties: null },
        { entity: "LwLine", key: expect.any(String), owner: doc, kind: "create", properties: null },
      ]),
    );
    expect(update).toHaveLength(2);
    await write(t, (ctx) => deleteRecord(ctx, Doc, doc));
    const deleted = (await changesOf(t)).slice(created.length + update.length);
    expect(deleted.map(said)).toEqual(
      expect.arrayContaining([
        { entity: "LwDoc", key: doc, owner: null, kind: "delete", properties: null },
        { entity: "LwLine", key: keep, owner: doc, kind: "delete", properties: null },
        { entity: "LwNote", key: note, owner: keep, kind: "delete", properties: null },
      ]),
    );
    expect(deleted).toHaveLength(4);
  });

  it("logs nothing of a write that fails or a transaction that rolls back", async () => {
    const t = uniqueTenant();
    const doc = await write(t, (ctx) => createRecord(ctx, Doc, { Number: "D1" }));
    const before = await changesOf(t);
    await expect(write(t, (ctx) => createRecord(ctx, Doc, { Number: "D1" }))).rejects.toThrow();
    await expect(write(t, (ctx) => createRecord(ctx, Doc, { Number: 5 }))).rejects.toMatchObject({ status: 400 });
    await expect(
      write(t, async (ctx) => {
        await updateRecord(ctx, Doc, doc, { Note: "gone" });
        await createRecord(ctx, Doc, { Number: "D2" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    // a set of creates stores (and logs) those that pass
    const outcomes = await write(t, (ctx) => createRecords(ctx, Doc, [{ Number: "D3" }, { Number: 7 }]));
    const after = (await changesOf(t)).slice(before.length);
    expect(after.map(said)).toEqual([
      { entity: "LwDoc", key: outcomes[0]!.guid!, owner: null, kind: "create", properties: null },
    ]);
  });

  it("logs nothing through a store whose log is off, and no tenant reads another's rows", async () => {
    const t = uniqueTenant();
    const other = uniqueTenant();
    await write(
      t,
      (ctx) => createRecord(ctx, Doc, { Number: "D1" }),
      (tx) => withStore(tx, tableStore(false)),
    );
    expect(await changesOf(t)).toEqual([]);
    await write(t, (ctx) => createRecord(ctx, Doc, { Number: "D2" }));
    expect(await changesOf(t)).toHaveLength(1);
    // the other tenant's statement names the first one: row-level security still hides its rows
    const leaked = await inTenant(db, other, (tx) => readChanges(tx, t, { entities: ENTITIES, from: "0", limit: 10 }));
    expect(leaked.rows).toEqual([]);
  });
});
