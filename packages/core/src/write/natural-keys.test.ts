import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { collection, complex, decimal, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { loadRecords } from "../storage/record-store.js";
import { inTenant } from "../storage/tenant-scope.js";
import { prefetchReferences } from "./natural-keys.js";
import { createRecord } from "./write-record.js";

// spec 4.3: references by natural key at every level; a non-unique key to test ambiguity
const Tag = entity("NkTag", { naturalKey: { property: "Label", unique: false }, fields: { Label: text() } });
const Item = entity("NkItem", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const Row = entity("NkRow", {
  naturalKey: "Guid",
  fields: { Sheet: reference("NkSheet", { required: true }), Item: reference("NkItem"), Qty: decimal() },
});
const Sheet = entity("NkSheet", {
  naturalKey: "Name",
  fields: {
    Name: text({ required: true }),
    Item: reference("NkItem"),
    Tag: reference("NkTag"),
    Place: complex({ City: text(), Item: reference("NkItem") }),
    Rows: collection(Row, { inverse: "Sheet" }),
  },
});
const model = defineModel([Tag, Item, Row, Sheet]);

let db: Database;
let tenant: string;
const guids: Record<string, string> = {};

const create = (def: typeof Sheet | typeof Item | typeof Tag, body: unknown) =>
  inTenant(db, tenant, (session) =>
    createRecord(
      { session, model, tenant: { id: tenant, features: new Set() }, prompts: new PromptCollector() },
      def,
      body,
    ),
  );

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  tenant = uniqueTenant("nk");
  guids.a = await create(Item, { Code: "A" });
  guids.b = await create(Item, { Code: "B" });
  // an item whose natural key looks like a Guid: the one of item A (rule 3: tried as a Guid first)
  guids.tricky = await create(Item, { Code: guids.a });
  await create(Tag, { Label: "twice" });
  await create(Tag, { Label: "twice" });
  guids.once = await create(Tag, { Label: "once" });
});

const stored = async (guid: string) => (await inTenant(db, tenant, (tx) => loadRecords(tx, Sheet, tenant, [guid])))[0]!;

describe("natural-key references (spec 4.3)", () => {
  it("resolves a natural key at the top level, inside a complex value and inside collection items", async () => {
    const guid = await create(Sheet, {
      Name: "S1",
      Item: "A",
      Tag: "once",
      Place: { City: "X", Item: "B" },
      Rows: [{ Item: "B" }, { Item: guids.b }],
    });
    const sheet = await stored(guid);
    expect(sheet).toMatchObject({ Item: guids.a, Tag: guids.once, Place: { City: "X", Item: guids.b } });
    const rows = await inTenant(db, tenant, (tx) =>
      tx.query<{ item_guid: string }>({
        sql: "SELECT item_guid FROM nk_row WHERE sheet_guid = $1::uuid",
        params: [guid],
      }),
    );
    expect(rows.map((r) => r.item_guid)).toEqual([guids.b, guids.b]);
  });

  it("tries a Guid-shaped string as a Guid first", async () => {
    const guid = await create(Sheet, { Name: "S2", Item: guids.a });
    // item A by its Guid, not the item whose Code is that same text
    expect((await stored(guid)).Item).toBe(guids.a);
    expect((await stored(guid)).Item).not.toBe(guids.tricky);
  });

  it.each([
    [{ Name: "E1", Item: "NOPE" }, "ReferenceNotFound", "Item"],
    [{ Name: "E2", Place: { Item: "NOPE" } }, "ReferenceNotFound", "Place.Item"],
    [{ Name: "E3", Rows: [{ Item: "A" }, { Item: "NOPE" }] }, "ReferenceNotFound", "Rows[1].Item"],
    [{ Name: "E4", Tag: "twice" }, "ReferenceAmbiguous", "Tag"],
    [{ Name: "E5", Item: "00000000-0000-4000-8000-000000000000" }, "ReferenceNotFound", "Item"],
  ])("refuses %j with 400 %s at %s", async (body, code, target) => {
    await expect(create(Sheet, body)).rejects.toMatchObject({ status: 400, code, target });
  });

  it("lists every failed reference when several fail", async () => {
    await expect(create(Sheet, { Name: "E6", Item: "NOPE", Tag: "twice" })).rejects.toMatchObject({
      status: 400,
      code: "ValidationError",
      details: [
        { code: "ReferenceNotFound", target: "Item" },
        { code: "ReferenceAmbiguous", target: "Tag" },
      ],
    });
  });

  it("prefetches the references of many writes with one statement per target entity", async () => {
    const statements: string[] = [];
    const cache = await inTenant(db, tenant, (tx) =>
      prefetchReferences(
        {
          query: (s) => {
            statements.push("q");
            return tx.query(s);
          },
          store: tx.store,
        },
        model,
        tenant,
        Array.from({ length: 10 }, (_, i) => ({
          entity: Sheet,
          body: { Name: `P${i}`, Item: "A", Tag: "once", Rows: [{ Item: "B" }, { Item: "A" }] },
        })),
      ),
    );
    expect(statements).toHaveLength(2);
    expect(cache.keys(Item).byKey.get("A")).toEqual([guids.a]);
  });

  it("sends the lookups of every target entity before the first is answered: one round trip", async () => {
    let sent = 0;
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const cache = await inTenant(db, tenant, (tx) =>
      prefetchReferences(
        {
          // each lookup is answered only once all have been sent
          query: async (s) => {
            if (++sent === 2) answer();
            await answered;
            return tx.query(s);
          },
          store: tx.store,
        },
        model,
        tenant,
        [{ entity: Sheet, body: { Name: "R", Item: "A", Tag: "once" } }],
      ),
    );
    expect(sent).toBe(2);
    expect(cache.keys(Item).byKey.get("A")).toEqual([guids.a]);
    expect(cache.keys(Tag).byKey.get("once")).toEqual([guids.once]);
  });

  it("fails the whole lookup when one target's statement fails, after every statement has ended", async () => {
    let ended = 0;
    const failure = inTenant(db, tenant, (tx) =>
      prefetchReferences(
        {
          query: async (s) => {
            try {
              if (ended === 0) throw new Error("the first lookup failed");
              return await tx.query(s);
            } finally {
              ended++;
            }
          },
          store: tx.store,
        },
        model,
        tenant,
        [{ entity: Sheet, body: { Name: "F", Item: "A", Tag: "once" } }],
      ),
    );
    await expect(failure).rejects.toThrow("the first lookup failed");
    expect(ended).toBe(2);
  });
});
