/**
 * Items per owned collection: a collection's own `maxItems`, else the write's bound
 * (WriteLimits), on every write that stores records (create, PATCH, a method's changes), counting
 * the items already stored, and refused before anything is stored.
 */

import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceError } from "../errors.js";
import { entity } from "../model/entity.js";
import { collection, integer, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { tableName } from "../storage/naming.js";
import { inTenant } from "../storage/tenant-scope.js";
import type { WriteLimits } from "./collection-limits.js";
import { loadTree } from "./record-tree.js";
import { createRecord, createRecords, saveChanges, updateRecord } from "./write-record.js";

const Step = entity("ClStep", { naturalKey: "Guid", fields: { Line: reference("ClLine"), Note: text() } });
const Line = entity("ClLine", {
  naturalKey: "Guid",
  fields: {
    Doc: reference("ClDoc"),
    Qty: integer(),
    Steps: collection(Step, { inverse: "Line", maxItems: 2 }),
  },
});
const Doc = entity("ClDoc", {
  naturalKey: "Number",
  fields: { Number: text({ required: true }), Lines: collection(Line, { inverse: "Doc" }) },
});
const model = defineModel([Step, Line, Doc]);
const limits: WriteLimits = { maxCollectionItems: 3 };

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

/** `fn` in a write context of the tenant, with `bounds` (null: none of its own) */
const inWrite = <T>(tenantId: string, fn: (ctx: any) => Promise<T>, bounds: WriteLimits | null = limits) =>
  inTenant(db, tenantId, (session) =>
    fn({
      session,
      model,
      tenant: { id: tenantId, features: new Set() },
      prompts: new PromptCollector(),
      ...(bounds && { limits: bounds }),
    }),
  );

const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ Qty: i }));

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeDefined();
  return err as ServiceError;
}

/** the tenant's documents, by number (row-level security keeps them to the tenant) */
const docsOf = (tenantId: string) =>
  inTenant(db, tenantId, (s) =>
    s.query<{ Number: string }>(sql`SELECT number AS "Number" FROM ${sql.identifier(tableName(Doc))} ORDER BY number`),
  );
const lineCount = (tenantId: string, guid: string) =>
  inTenant(db, tenantId, async (s) => (await loadTree(s, Doc, tenantId, guid))!.items.get("Lines")!.length);

describe("items per owned collection", () => {
  it("takes a record at the bound and refuses one over it, naming the collection and the bound", async () => {
    const t = uniqueTenant();
    await inWrite(t, (ctx) => createRecord(ctx, Doc, { Number: "D1", Lines: lines(3) }));
    const err = await refusal(inWrite(t, (ctx) => createRecord(ctx, Doc, { Number: "D2", Lines: lines(4) })));
    expect([err.status, err.code, err.target]).toEqual([400, "CollectionTooLarge", "Lines"]);
    expect(err.message).toBe("Lines may hold at most 3 items; this write would leave it with 4.");
    expect((await docsOf(t)).map((d) => d.Number)).toEqual(["D1"]);
  });

  it("applies a collection's own maxItems at any depth, with the item's path", async () => {
    const t = uniqueTenant();
    const body = { Number: "D1", Lines: [{ Qty: 1 }, { Qty: 2, Steps: [{}, {}, {}] }] };
    const err = await refusal(inWrite(t, (ctx) => createRecord(ctx, Doc, body)));
    expect([err.code, err.target]).toEqual(["CollectionTooLarge", "Lines[1].Steps"]);
    expect(err.message).toContain("at most 2 items");
    expect(await docsOf(t)).toEqual([]);
  });

  it("fails only the records of a set that are over the bound", async () => {
    const t = uniqueTenant();
    const outcomes = await inWrite(t, (ctx) =>
      createRecords(ctx, Doc, [
        { Number: "A", Lines: lines(1) },
        { Number: "B", Lines: lines(5) },
      ]),
    );
    expect(outcomes[0]!.error).toBeUndefined();
    expect(outcomes[1]!.error?.code).toBe("CollectionTooLarge");
    expect((await docsOf(t)).map((d) => d.Number)).toEqual(["A"]);
  });

  it("counts the items already stored when a PATCH or a method's changes add more", async () => {
    const t = uniqueTenant();
    const guid = await inWrite(t, (ctx) => createRecord(ctx, Doc, { Number: "D1", Lines: lines(2) }));
    const stored = await inTenant(db, t, async (s) => (await loadTree(s, Doc, t, guid))!);
    const kept = stored.items.get("Lines")!.map((l) => ({ Guid: l.record.Guid }));
    // PATCH: the two stored lines kept, two added
    const patch = await refusal(
      inWrite(t, (ctx) => updateRecord(ctx, Doc, guid, { Lines: [...kept, { Qty: 7 }, { Qty: 8 }] })),
    );
    expect([patch.code, patch.target]).toEqual(["CollectionTooLarge", "Lines"]);
    // a method's changes (server code): the same bound
    const method = await refusal(
      inWrite(t, (ctx) => saveChanges(ctx, Doc, guid, { Lines: [...kept, { Qty: 7 }, { Qty: 8 }] })),
    );
    expect([method.code, method.target]).toEqual(["CollectionTooLarge", "Lines"]);
    expect(await lineCount(t, guid)).toBe(2);
    // up to the bound is fine
    await inWrite(t, (ctx) => saveChanges(ctx, Doc, guid, { Lines: [...kept, { Qty: 7 }] }));
    expect(await lineCount(t, guid)).toBe(3);
  });

  it("bounds a write without limits of its own at 1000 items", async () => {
    const t = uniqueTenant();
    const err = await refusal(inWrite(t, (ctx) => createRecord(ctx, Doc, { Number: "Big", Lines: lines(1001) }), null));
    expect(err.message).toContain("at most 1000 items");
  });

  it("refuses a maxItems that is not a whole number of items when the model is declared", () => {
    expect(() => collection(Step, { inverse: "Line", maxItems: -1 })).toThrow("maxItems must be a whole number");
    expect(() => collection(Step, { inverse: "Line", maxItems: 1.5 })).toThrow("maxItems must be a whole number");
  });
});
