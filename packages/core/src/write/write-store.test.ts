/**
 * Every write kind goes through the session's store: on the base tables it saves, inside a
 * workflow (a staged session) it stages, and the base tables stay untouched until a commit.
 * Each case runs in both modes against the same model.
 */
import { randomUUID } from "node:crypto";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { invokeMethod } from "../methods/invoke-method.js";
import { method } from "../methods/method.js";
import { entity } from "../model/entity.js";
import { collection, decimal, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database, Session } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { loadRecords } from "../storage/record-store.js";
import { stagedSession } from "../storage/staged-store.js";
import { inTenant } from "../storage/tenant-scope.js";
import { resolveReferences } from "./natural-keys.js";
import { createRecord, deleteRecord, updateRecord, type WriteContext } from "./write-record.js";

const Remove = method({ description: "Deletes the given part", type: "modify", params: {} });

const Part = entity("WsPart", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Price: decimal() },
  methods: { Remove },
});
const Line = entity("WsLine", {
  naturalKey: "Guid",
  fields: { Doc: reference("WsDoc", { required: true }), Part: reference("WsPart"), Qty: decimal() },
});
const Doc = entity("WsDoc", {
  naturalKey: "Number",
  fields: { Number: text({ required: true }), Note: text(), Lines: collection(Line, { inverse: "Doc" }) },
});
const saved: Record<string, unknown>[][] = [];
const Import = entity("WsImport", {
  naturalKey: "Guid",
  fields: { Number: text({ required: true }) },
  storage: {
    save: async (records, ctx) => {
      saved.push([...records]);
      for (const r of records) await ctx.create("WsDoc", { Number: r.Number });
    },
  },
});
const model = defineModel([Part, Line, Doc, Import]);
model.subscribe(Remove, {
  name: "remove-self",
  run: async ({ record, ...ctx }) => {
    await ctx.remove("WsPart", record!.Guid as string);
  },
});

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

type Mode = "base" | "staged";

/** runs `fn` with a write context of `mode` in one tenant transaction */
const writing = <T>(tenantId: string, mode: Mode, workflowId: string, fn: (ctx: WriteContext) => Promise<T>) =>
  inTenant(db, tenantId, (tx) =>
    fn({
      session: mode === "staged" ? stagedSession(tx, workflowId) : tx,
      model,
      tenant: { id: tenantId, features: new Set() },
      prompts: new PromptCollector(),
    }),
  );

/** what the base tables hold, and what the workflow's overlay shows */
const seen = (tenantId: string, workflowId: string, fn: (s: Session) => Promise<unknown>) =>
  inTenant(db, tenantId, async (tx) => ({ base: await fn(tx), staged: await fn(stagedSession(tx, workflowId)) }));

const load = (def: typeof Doc | typeof Part | typeof Line, tenantId: string, guid: string) => (s: Session) =>
  loadRecords(s, def, tenantId, [guid]).then(([r]) => r ?? null);

/** a tenant with one document of two lines and a part, saved in the base tables */
async function fixture() {
  const tenantId = uniqueTenant("ws");
  const workflowId = randomUUID();
  const ids = await writing(tenantId, "base", workflowId, async (ctx) => {
    const part = await createRecord(ctx, Part, { Code: "P1", Price: 2 });
    const spare = await createRecord(ctx, Part, { Code: "P0" });
    const doc = await createRecord(ctx, Doc, { Number: "D1", Lines: [{ Qty: 1, Part: "P1" }, { Qty: 2 }] });
    const lines = await ctx.session.store.loadWhere(ctx.session, Line, tenantId, "doc_guid", [doc]);
    return { part, spare, doc, lines: lines.map((l) => l.Guid as string) };
  });
  return { tenantId, workflowId, ...ids };
}

describe.each<Mode>(["base", "staged"])("writes through the %s store", (mode) => {
  const visibleIn = mode === "base" ? ["base", "staged"] : ["staged"];
  const expectOnlyIn = (result: { base: unknown; staged: unknown }, present: (v: unknown) => boolean) => {
    expect(present(result.base)).toBe(visibleIn.includes("base"));
    expect(present(result.staged)).toBe(true);
  };

  it("create: a new record", async () => {
    const f = await fixture();
    const guid = await writing(f.tenantId, mode, f.workflowId, (ctx) => createRecord(ctx, Part, { Code: "P2" }));
    expectOnlyIn(await seen(f.tenantId, f.workflowId, load(Part, f.tenantId, guid)), (r) => r !== null);
  });

  it("update: changed properties", async () => {
    const f = await fixture();
    await writing(f.tenantId, mode, f.workflowId, (ctx) => updateRecord(ctx, Part, f.part, { Price: 5 }));
    const result = await seen(f.tenantId, f.workflowId, load(Part, f.tenantId, f.part));
    expectOnlyIn(result, (r) => Number((r as { Price: unknown }).Price) === 5);
  });

  it("delete: the record and its owned items", async () => {
    const f = await fixture();
    await writing(f.tenantId, mode, f.workflowId, (ctx) => deleteRecord(ctx, Doc, f.doc));
    expectOnlyIn(await seen(f.tenantId, f.workflowId, load(Doc, f.tenantId, f.doc)), (r) => r === null);
    expectOnlyIn(await seen(f.tenantId, f.workflowId, load(Line, f.tenantId, f.lines[0]!)), (r) => r === null);
    // deleted once: a second delete finds nothing
    await expect(
      writing(f.tenantId, mode, f.workflowId, async (ctx) => {
        await deleteRecord(ctx, Doc, f.doc);
        await deleteRecord(ctx, Doc, f.doc);
      }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("deep items: a line removed, one changed, one added", async () => {
    const f = await fixture();
    await writing(f.tenantId, mode, f.workflowId, (ctx) =>
      updateRecord(ctx, Doc, f.doc, { Lines: [{ Guid: f.lines[1], Qty: 7 }, { Qty: 3 }] }),
    );
    const lines = await seen(f.tenantId, f.workflowId, (s) =>
      s.store.loadWhere(s, Line, f.tenantId, "doc_guid", [f.doc]).then((ls) => ls.map((l) => String(l.Qty)).sort()),
    );
    expect(lines.staged).toEqual(["3", "7"]);
    expect(lines.base).toEqual(mode === "base" ? ["3", "7"] : ["1", "2"]);
  });

  it("a method's remove()", async () => {
    const f = await fixture();
    await writing(f.tenantId, mode, f.workflowId, (ctx) =>
      invokeMethod(
        { ...ctx, query: async () => [] },
        { entity: Part, name: "Remove", key: f.spare, args: {}, argsAsText: false },
        Remove,
      ),
    );
    expectOnlyIn(await seen(f.tenantId, f.workflowId, load(Part, f.tenantId, f.spare)), (r) => r === null);
  });

  it("a virtual entity: saved at once on the base store, staged (its save not run) in a workflow", async () => {
    const f = await fixture();
    saved.length = 0;
    const guid = await writing(f.tenantId, mode, f.workflowId, (ctx) => createRecord(ctx, Import, { Number: "V1" }));
    expect(saved.length).toBe(mode === "base" ? 1 : 0);
    const staged = await inTenant(db, f.tenantId, (tx) =>
      loadRecords(stagedSession(tx, f.workflowId), Import, f.tenantId, [guid]),
    );
    expect(staged.length).toBe(mode === "base" ? 0 : 1);
  });

  it("natural keys resolve against what the store shows", async () => {
    const f = await fixture();
    await writing(f.tenantId, mode, f.workflowId, (ctx) => createRecord(ctx, Part, { Code: "NEW" }));
    const lookUp = (s: Session) =>
      resolveReferences(s, model, Line, f.tenantId, { Part: "NEW" }).then(
        () => "found",
        () => "missing",
      );
    const result = await seen(f.tenantId, f.workflowId, lookUp);
    expect(result).toEqual({ base: mode === "base" ? "found" : "missing", staged: "found" });
  });
});

describe("staged writes in sequence", () => {
  it("a change then a delete leaves a tombstone, not the changed image", async () => {
    const f = await fixture();
    await writing(f.tenantId, "staged", f.workflowId, async (ctx) => {
      await updateRecord(ctx, Part, f.spare, { Price: 9 });
      await deleteRecord(ctx, Part, f.spare);
    });
    const result = await seen(f.tenantId, f.workflowId, load(Part, f.tenantId, f.spare));
    expect(result.staged).toBeNull();
    expect((result.base as { Price: unknown }).Price).toBeNull();
    // an update of the deleted record inside the workflow is a 404, as on the base tables
    await expect(
      writing(f.tenantId, "staged", f.workflowId, (ctx) => updateRecord(ctx, Part, f.spare, { Price: 1 })),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("another workflow sees none of it", async () => {
    const f = await fixture();
    await writing(f.tenantId, "staged", f.workflowId, (ctx) => deleteRecord(ctx, Part, f.spare));
    const other = await seen(f.tenantId, randomUUID(), load(Part, f.tenantId, f.spare));
    expect(other.staged).not.toBeNull();
  });
});
