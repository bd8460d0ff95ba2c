import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { badRequest, type ErrorDetail } from "../errors.js";
import { entity } from "../model/entity.js";
import { collection, decimal, reference, text } from "../model/fields.js";
import type { LogicHook, SaveHook } from "../model/hooks.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { loadRecords } from "../storage/record-store.js";
import { inTenant } from "../storage/tenant-scope.js";
import { createRecord, deleteRecord, updateRecord } from "./write-record.js";

// what ran, in order, across one write
let calls: string[] = [];
const logic = (name: string, extra: Partial<LogicHook<any>> = {}): LogicHook<any> => ({
  name,
  run: () => {
    calls.push(name);
  },
  ...extra,
});

const Part = entity("WpPart", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Price: decimal() },
});
const Line = entity("WpLine", {
  naturalKey: "Guid",
  fields: { Doc: reference("WpDoc", { required: true }), Part: reference("WpPart"), Qty: decimal(), Price: decimal() },
  hooks: {
    deserialize: [
      {
        name: "line-deserialize",
        run: (b) => {
          calls.push("line-deserialize");
          return b;
        },
      },
    ],
    logic: [
      {
        name: "line-logic",
        on: ["Part"],
        async run({ record, read, owner }) {
          calls.push("line-logic");
          const part = record.Part ? await read("WpPart", record.Part as string) : null;
          record.Price = part ? Number(part.Price) * (owner?.Factor === "double" ? 2 : 1) : null;
        },
      },
    ],
    save: [
      {
        name: "line-save",
        run: ({ record, reject }) => {
          calls.push("line-save");
          if (Number(record.Qty) < 0) reject("Qty", "negative");
        },
      } satisfies SaveHook<any>,
    ],
  },
});
const Doc = entity("WpDoc", {
  naturalKey: "Number",
  fields: {
    Number: text({ required: true }),
    Factor: text(),
    Note: text(),
    Total: decimal({ readOnly: true }),
    Lines: collection(Line, { inverse: "Doc" }),
  },
  hooks: {
    deserialize: [
      {
        name: "doc-deserialize",
        run: (b) => {
          calls.push("doc-deserialize");
          return b;
        },
      },
      {
        name: "doc-rename",
        feature: "Legacy",
        run: ({ Num, ...rest }) => (Num === undefined ? rest : { ...rest, Number: Num }),
      },
    ],
    logic: [
      logic("doc-logic", {
        run: ({ record }) => {
          calls.push("doc-logic");
          record.Total = ((record.Lines as any[]) ?? []).reduce(
            (t, l) => t + Number(l.Qty ?? 0) * Number(l.Price ?? 0),
            0,
          );
        },
      }),
      logic("doc-gated", { feature: "Extra" }),
      logic("doc-on-note", { on: ["Note"] }),
    ],
    save: [
      {
        name: "doc-save",
        async run({ record, reject, prompts }) {
          calls.push("doc-save");
          if (record.Number === "reject-me") reject("Number", "not this number");
          const answer = await prompts.ask({
            key: "big",
            text: "Big?",
            choices: [
              { key: "yes", label: "Yes" },
              { key: "no", label: "No" },
            ],
            default: "no",
          });
          prompts.message({ text: `answered ${answer}`, entityGuid: record.Guid as string, property: "Total" });
        },
      } satisfies SaveHook<any>,
    ],
  },
});
const model = defineModel([Part, Line, Doc]);

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

async function write<T>(tenantId: string, features: string[], fn: (ctx: any) => Promise<T>) {
  const prompts = new PromptCollector();
  const result = await inTenant(db, tenantId, (session) =>
    fn({ session, model, tenant: { id: tenantId, features: new Set(features) }, prompts }),
  );
  return { result, prompts: prompts.envelope() };
}

describe("write pipeline", () => {
  it("runs deserialization, logic (items before owner) and save hooks in order, then stores the outcome", async () => {
    const t = uniqueTenant();
    await write(t, [], (ctx) => createRecord(ctx, Part, { Code: "A", Price: 2.5 }));
    calls = [];
    const { result: guid, prompts } = await write(t, [], (ctx) =>
      createRecord(ctx, Doc, {
        Number: "D1",
        Factor: "double",
        Lines: [
          { Part: "A", Qty: 2 },
          { Part: "A", Qty: 1 },
        ],
      }),
    );
    expect(calls).toEqual([
      "doc-deserialize",
      "line-deserialize",
      "line-deserialize",
      "line-logic",
      "line-logic",
      "doc-logic",
      "doc-on-note",
      "line-save",
      "line-save",
      "doc-save",
    ]);
    const [doc] = await inTenant(db, t, (tx) => loadRecords(tx, Doc, t, [guid]));
    // lines priced by their logic (2.5 × 2 for "double"), total by the owner's logic from them
    expect(doc?.Total).toBe(15);
    expect(prompts).toEqual({ [`${guid}.Total`]: [{ id: expect.any(String), text: "answered no", severity: "info" }] });
  });

  it("runs a hook with `on` only when one of its properties changed", async () => {
    const t = uniqueTenant();
    const { result: guid } = await write(t, [], (ctx) => createRecord(ctx, Doc, { Number: "D2" }));
    calls = [];
    await write(t, [], (ctx) => updateRecord(ctx, Doc, guid, { Factor: "x" }));
    expect(calls).toContain("doc-logic");
    expect(calls).not.toContain("doc-on-note");
    calls = [];
    await write(t, [], (ctx) => updateRecord(ctx, Doc, guid, { Note: "n" }));
    expect(calls).toContain("doc-on-note");
  });

  it("gates hooks by tenant feature", async () => {
    const t = uniqueTenant();
    calls = [];
    await write(t, [], (ctx) => createRecord(ctx, Doc, { Number: "D3" }));
    expect(calls).not.toContain("doc-gated");
    calls = [];
    await write(t, ["Extra"], (ctx) => createRecord(ctx, Doc, { Number: "D4" }));
    expect(calls).toContain("doc-gated");
    // a gated deserialization hook: the legacy name is unknown without the feature
    await expect(write(t, [], (ctx) => createRecord(ctx, Doc, { Num: "D5" }))).rejects.toMatchObject({ status: 400 });
    const { result } = await write(t, ["Legacy"], (ctx) => createRecord(ctx, Doc, { Num: "D5" }));
    expect(result).toEqual(expect.any(String));
  });

  it("collects save rejections with full property paths and stores nothing", async () => {
    const t = uniqueTenant();
    const attempt = write(t, [], (ctx) =>
      createRecord(ctx, Doc, { Number: "reject-me", Lines: [{ Qty: 1 }, { Qty: -1 }] }),
    );
    const error = await attempt.catch((e: { status: number; details: ErrorDetail[] }) => e);
    expect(error).toMatchObject({ status: 400, code: "ValidationError" });
    expect((error as { details: ErrorDetail[] }).details.map((d) => d.target)).toEqual(["Lines[1].Qty", "Number"]);
    const count = await inTenant(db, t, (tx) => tx.query({ sql: "SELECT count(*)::int AS n FROM wp_doc", params: [] }));
    expect(count[0]?.n).toBe(0);
  });

  it("updates, adds and removes collection items in one write and recomputes from the result", async () => {
    const t = uniqueTenant();
    await write(t, [], (ctx) => createRecord(ctx, Part, { Code: "B", Price: 10 }));
    const { result: guid } = await write(t, [], (ctx) =>
      createRecord(ctx, Doc, {
        Number: "D6",
        Lines: [
          { Part: "B", Qty: 1 },
          { Part: "B", Qty: 2 },
        ],
      }),
    );
    const lines = await inTenant(db, t, (tx) =>
      tx.query<{ guid: string; qty: string }>({ sql: "SELECT guid, qty FROM wp_line ORDER BY qty", params: [] }),
    );
    await write(t, [], (ctx) =>
      updateRecord(ctx, Doc, guid, {
        Lines: [
          { Guid: lines[1]!.guid, Qty: 5 },
          { Part: "B", Qty: 1 },
        ],
      }),
    );
    const after = await inTenant(db, t, (tx) =>
      tx.query<{ qty: string }>({ sql: "SELECT qty FROM wp_line ORDER BY qty", params: [] }),
    );
    expect(after.map((r) => Number(r.qty))).toEqual([1, 5]);
    const [doc] = await inTenant(db, t, (tx) => loadRecords(tx, Doc, t, [guid]));
    expect(doc?.Total).toBe(60);
    await write(t, [], (ctx) => deleteRecord(ctx, Doc, guid));
    const left = await inTenant(db, t, (tx) => tx.query({ sql: "SELECT 1 FROM wp_line", params: [] }));
    expect(left).toEqual([]);
  });
});

// hooks that return a promise, a thenable that is not a Promise, or nothing, in one list
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const Mixed = entity("WpMixed", {
  naturalKey: "Name",
  fields: { Name: text({ required: true }), A: text(), B: text(), C: text(), D: text() },
  hooks: {
    logic: [
      {
        name: "async-sets-A",
        async run({ record }) {
          await tick();
          record.A = "a";
        },
      },
      {
        name: "sync-reads-A",
        run: ({ record }) => {
          record.B = `${record.A}b`;
        },
      },
      {
        name: "thenable-sets-C",
        // a thenable from another library: awaited like a promise
        run: ({ record }) =>
          ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable is what this hook must return
            then(resolve: () => void) {
              setImmediate(() => {
                record.C = "c";
                resolve();
              });
            },
          }) as unknown as Promise<void>,
      },
      {
        name: "sync-reads-C",
        run: ({ record }) => {
          record.D = `${record.C}d`;
        },
      },
    ],
    save: [
      {
        name: "sync-throws",
        run: ({ record }) => {
          if (record.Name === "throw") throw badRequest("InvalidValue", "a save hook refused this record", "Name");
        },
      },
    ],
  },
});
const mixedModel = defineModel([Mixed]);

describe("hooks that return a promise, a thenable or nothing", () => {
  beforeAll(() => migrate(db, mixedModel));
  const create = (tenantId: string, body: unknown) =>
    inTenant(db, tenantId, (session) =>
      createRecord(
        { session, model: mixedModel, tenant: { id: tenantId, features: new Set() }, prompts: new PromptCollector() },
        Mixed,
        body,
      ),
    );

  it("run in order, each seeing what the one before it set, however it finished", async () => {
    const t = uniqueTenant("wp-mixed");
    const guid = await create(t, { Name: "ok" });
    const [stored] = await inTenant(db, t, (tx) => loadRecords(tx, Mixed, t, [guid]));
    expect(stored).toMatchObject({ A: "a", B: "ab", C: "c", D: "cd" });
  });

  it("fail the write with a synchronous hook's error, storing nothing", async () => {
    const t = uniqueTenant("wp-mixed");
    await expect(create(t, { Name: "throw" })).rejects.toMatchObject({
      status: 400,
      code: "InvalidValue",
      target: "Name",
    });
    const rows = await inTenant(db, t, (tx) => tx.query({ sql: "SELECT 1 FROM wp_mixed", params: [] }));
    expect(rows).toEqual([]);
  });
});
