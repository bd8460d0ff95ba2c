/**
 * A method subscribed through its entity (`Line.methods.Reprice`) sees the entity's record type,
 * and `read`/`query` given a definition answer with that definition's records. The type cases
 * are checked by `tsc` over the workspace (`// @ts-expect-error` fails the check when the line
 * compiles, so a record typed `any` would fail it too); the runtime cases show that a definition
 * is resolved against the model, not only by its name.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { entity, type RecordOf } from "../model/entity.js";
import { decimal, integer, reference, text } from "../model/fields.js";
import { defineModel, type Model } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Session } from "../storage/database.js";
import { baseStore } from "../storage/record-store.js";
import { invokeMethod } from "./invoke-method.js";
import { method } from "./method.js";

const Part = entity("RecPart", { naturalKey: "Code", fields: { Code: text({ required: true }), Price: decimal() } });
const Line = entity("RecLine", {
  naturalKey: "Guid",
  fields: { Quantity: integer({ required: true }), Part: reference("RecPart", { required: true }) },
  methods: {
    Reprice: method({
      description: "Reprices the line",
      type: "modify",
      params: { delta: integer({ required: true }) },
    }),
    Count: method({
      description: "Lines of a part",
      type: "read",
      isStatic: true,
      params: { part: text({ required: true }) },
      returns: { kind: "scalar", type: integer() },
    }),
  },
});
type LineRecord = RecordOf<typeof Line>;

describe("a method's record type", () => {
  it("is its entity's record for an instance method subscribed through the entity", () => {
    defineModel([Part, Line]).subscribe(Line.methods.Reprice, {
      name: "Typed",
      disableIf: (line) => {
        expectTypeOf(line).toEqualTypeOf<LineRecord>();
        return line.Quantity + 1 > 100;
      },
      abortIf: { when: ({ record, args }) => record.Quantity + args.delta < 0, message: "Below zero." },
      run: async ({ record, args, read, query }) => {
        expectTypeOf(record).toEqualTypeOf<LineRecord>();
        record.Quantity = record.Quantity + args.delta;
        // @ts-expect-error a misspelt field is not a property of the record
        record.Quantiy;
        // @ts-expect-error a number field takes no text
        record.Quantity = "12";
        expectTypeOf(await read(Part, record.Part)).toEqualTypeOf<RecordOf<typeof Part> | null>();
        expectTypeOf(await query(Line, "Quantity gt 1")).toEqualTypeOf<LineRecord[]>();
        // by name the entity is unknown to the compiler: a plain record
        expectTypeOf(await read("RecPart", record.Part)).toEqualTypeOf<Record<string, unknown> | null>();
      },
    });
  });

  it("is null for a static method, and a plain record for a declaration not read from its entity", () => {
    const Loose = method({ description: "Declared apart", type: "read" });
    const Holder = entity("RecHolder", { naturalKey: "Guid", fields: {}, methods: { Loose } });
    defineModel([Part, Line, Holder])
      .subscribe(Line.methods.Count, {
        name: "Static",
        run: ({ record }) => {
          expectTypeOf(record).toEqualTypeOf<null>();
          return 0;
        },
      })
      .subscribe(Loose, {
        name: "Plain",
        run: ({ record }) => {
          expectTypeOf(record).toEqualTypeOf<Record<string, unknown>>();
        },
      });
    expect(Holder.methods.Loose).toBe(Loose);
  });
});

describe("read() by definition", () => {
  const asked: string[] = [];
  // a static call loads no record: the only statement is the subscriber's read
  const session: Session = {
    query: (statement) => {
      asked.push(JSON.stringify(statement));
      return Promise.reject(new Error("no database in this test"));
    },
    store: baseStore,
  };
  const call = (model: Model) =>
    invokeMethod(
      {
        session,
        model,
        tenant: { id: "t", features: new Set() },
        prompts: new PromptCollector(),
        query: async () => [],
      },
      { entity: Line, name: "Count", key: null, args: { part: "P-1" }, argsAsText: false },
      Line.methods.Count,
    );

  it("reads the model's entity of that definition", async () => {
    const model = defineModel([Part, Line]).subscribe(Line.methods.Count, {
      name: "ReadsPart",
      run: async ({ read }) => ((await read(Part, "g")) === null ? 0 : 1),
    });
    asked.length = 0;
    await expect(call(model)).rejects.toThrow("no database in this test");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("rec_part");
  });

  it("refuses a definition the model does not hold, though it has the same name", async () => {
    const Impostor = entity("RecPart", { naturalKey: "Guid", fields: {} });
    const model = defineModel([Part, Line]).subscribe(Line.methods.Count, {
      name: "ReadsImpostor",
      run: async ({ read }) => ((await read(Impostor, "g")) === null ? 0 : 1),
    });
    asked.length = 0;
    await expect(call(model)).rejects.toThrow(
      'RecLine.Count: the entity "RecPart" passed is not the model\'s; pass the definition the model was built from.',
    );
    expect(asked).toEqual([]);
  });
});
