import { describe, expect, expectTypeOf, it } from "vitest";
import { disabledMethods, invokeMethod, type MethodEnvironment } from "../methods/invoke-method.js";
import { method } from "../methods/method.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Session } from "../storage/database.js";
import { baseStore } from "../storage/record-store.js";
import { entity } from "./entity.js";
import { boolean, decimal, integer, text } from "./fields.js";
import { defineModel, type Model } from "./model.js";

const Close = method({ description: "Closes the ticket", type: "modify" });
const Estimate = method({
  description: "Hours for a ticket of this size",
  type: "read",
  isStatic: true,
  params: { size: integer({ required: true }), factor: decimal({ default: 1 }) },
  returns: { kind: "scalar", type: decimal() },
});
const Ticket = entity("SubTicket", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Closed: boolean({ default: false }) },
  methods: { Close, Estimate },
});
const Orphan = method({ description: "On no entity of the model", type: "read" });

// the session is never reached: static calls and refusals load no record
const session: Session = {
  query: () => Promise.reject(new Error("no database in this test")),
  store: baseStore,
};
const environment = (model: Model): MethodEnvironment => ({
  session,
  model,
  tenant: { id: "t", features: new Set() },
  prompts: new PromptCollector(),
  query: async () => [],
});
const estimate = (model: Model) =>
  invokeMethod(
    environment(model),
    { entity: Ticket, name: "Estimate", key: null, args: { size: 3 }, argsAsText: false },
    Estimate,
  );

describe("subscribers on a model", () => {
  it("keeps two models over the same declarations apart", async () => {
    const first = defineModel([Ticket]);
    const second = defineModel([Ticket]);
    first.subscribe(Estimate, { name: "Fast", run: ({ args }) => args.size * 2 });
    first.subscribe(Close, { name: "Once", disableIf: (t) => t.Closed === true });

    expect(first.subscribers(Estimate).map((s) => s.name)).toEqual(["Fast"]);
    expect(second.subscribers(Estimate)).toEqual([]);
    expect(await estimate(first)).toMatchObject({ status: "done", value: 6 });
    await expect(estimate(second)).rejects.toMatchObject({ status: 501, code: "MethodNotImplemented" });

    const closed = { Guid: "g", Code: "T-1", Closed: true };
    expect(disabledMethods(first, Ticket, closed, new Set())).toEqual(["Close"]);
    expect(disabledMethods(second, Ticket, closed, new Set())).toEqual([]);

    second.subscribe(Estimate, { name: "Slow", run: ({ args }) => args.size * 10 });
    expect(await estimate(first)).toMatchObject({ value: 6 });
    expect(await estimate(second)).toMatchObject({ value: 30 });
  });

  it("runs subscribers in registration order and chains registrations", async () => {
    const ran: string[] = [];
    const model = defineModel([Ticket])
      .subscribe(Estimate, {
        name: "a",
        run: () => {
          ran.push("a");
          return null;
        },
      })
      .subscribe(Estimate, {
        name: "b",
        run: () => {
          ran.push("b");
          return 1;
        },
      });
    expect(await estimate(model)).toMatchObject({ status: "done", value: 1 });
    expect(ran).toEqual(["a", "b"]);
  });

  it("refuses a method of no entity of the model, and a DisableIf on a static method", () => {
    const model = defineModel([Ticket]);
    expect(() => model.subscribe(Orphan, { name: "Lost" })).toThrow(
      "Lost: its method is not in the methods of any entity of this model; add it to an entity's methods.",
    );
    expect(() => model.subscribe(Estimate, { name: "NoRecord", disableIf: () => true })).toThrow(
      "NoRecord: DisableIf needs a record; the method is static.",
    );
    expect(model.subscribers(Estimate)).toEqual([]);
  });

  it("types a subscriber's arguments and return value from the declaration", () => {
    const model = defineModel([Ticket]);
    model.subscribe(Estimate, {
      name: "Typed",
      run: ({ args }) => {
        expectTypeOf(args.size).toEqualTypeOf<number>();
        return args.size * (args.factor ?? 1);
      },
    });
    // @ts-expect-error Estimate returns a decimal, not text
    model.subscribe(Estimate, { name: "Wrong", run: () => "many" });
  });
});
