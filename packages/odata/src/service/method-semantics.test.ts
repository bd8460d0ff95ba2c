import {
  decimal,
  defineModel,
  entity,
  inTenant,
  integer,
  invokeMethod,
  method,
  PromptCollector,
  text,
} from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

// a model of its own: subscribers that record what ran, to pin the execution rules down
const log: string[] = [];
const Bump = method({ description: "Adds to Count, step by step", type: "modify", params: { failAt: integer() } });
const Seal = method({
  description: "Seals, saving once at the end",
  type: "modify",
  saveOnCompletion: true,
  params: { fail: integer() },
});
const Peek = method({ description: "Tries to write from a Read method", type: "read" });
const Gated = method({ description: "Only behind a feature", type: "read", returns: { kind: "scalar", type: text() } });
const Unimplemented = method({ description: "Declared, never implemented", type: "read" });
const Make = method({
  description: "Static Modify: creates a counter",
  type: "modify",
  isStatic: true,
  params: { name: text({ required: true }) },
  returns: { kind: "entity", entity: "MsCounter" },
});

const Counter = entity("MsCounter", {
  naturalKey: "Name",
  fields: {
    Name: text({ required: true }),
    Count: integer({ default: 0 }),
    Sealed: text({ readOnly: true }),
    Note: text(),
    Amount: decimal(),
  },
  methods: { Bump, Seal, Peek, Gated, Unimplemented, Make },
});
const model = defineModel([Counter]);

const step = (name: string, n: number, withUndo: boolean) =>
  model.subscribe(Bump, {
    name,
    run: async ({ record, args, abort, save }) => {
      log.push(`run ${name}`);
      if (args.failAt === n) abort(`stopped at ${name}`);
      record!.Count = Number(record!.Count) + 1;
      await save();
    },
    ...(withUndo && {
      undo: async ({ record, save }) => {
        log.push(`undo ${name}`);
        record!.Count = Number(record!.Count) - 1;
        await save();
      },
    }),
  });
step("first", 1, true);
step("second", 2, false);
step("third", 3, true);
step("fourth", 4, true);
model.subscribe(Seal, {
  name: "mark",
  run: ({ record }) => {
    log.push("seal mark");
    record!.Sealed = "yes";
    record!.Note = "sealed";
  },
  undo: () => {
    log.push("seal undo");
  },
});
model.subscribe(Seal, {
  name: "maybe fail",
  run: ({ args, abort }) => {
    if (args.fail === 1) abort("not sealing");
  },
});
model.subscribe(Peek, {
  name: "peek",
  run: async ({ record, update }) => {
    await update("MsCounter", record!.Guid as string, { Note: "written by a read" });
  },
});
model.subscribe(Gated, { name: "gated", feature: "Secret", run: () => "secret" });
model.subscribe(Make, { name: "make", run: ({ args, create }) => create("MsCounter", { Name: args.name }) });

let api: ServiceTenant;
let db: Awaited<ReturnType<typeof testDatabase>>;
let tenantId: string;

beforeAll(async () => {
  db = await testDatabase();
  tenantId = uniqueTenant("semantics");
  api = (await serviceHarness({ model })).tenant(tenantId);
});

const json = async (res: Response) => (await res.json()) as any;
const counter = async (name: string) => {
  const res = await api.call("POST", "/api/MsCounter/Make?$select=Name,Count", { body: { name } });
  expect(res.status).toBe(200);
  return (await json(res)) as { Guid: string; Count: number };
};
const read = async (guid: string) => json(await api.call("GET", `/api/MsCounter(${guid})?$select=Count,Sealed,Note`));

describe("method execution rules (spec 4.8)", () => {
  it("runs subscribers in registration order; the return value of a static Modify method is read back", async () => {
    const c = await counter("order");
    expect(dataOf(c)).toEqual({ Guid: expect.any(String), Name: "order", Count: 0 });
    log.length = 0;
    expect((await api.call("POST", `/api/MsCounter(${c.Guid})/Bump`, { body: {} })).status).toBe(204);
    expect(log).toEqual(["run first", "run second", "run third", "run fourth"]);
    expect((await read(c.Guid)).Count).toBe(4);
  });

  it("on an abort inside a body undoes the subscribers that ran, in reverse; one without undo keeps its change", async () => {
    const c = await counter("abort");
    log.length = 0;
    const res = await api.call("POST", `/api/MsCounter(${c.Guid})/Bump`, { body: { failAt: 4 } });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: "MethodAborted", message: "stopped at fourth" });
    // fourth stopped itself; the completed ones are undone in reverse, second has no undo
    expect(log).toEqual(["run first", "run second", "run third", "run fourth", "undo third", "undo first"]);
    // first's and third's +1 undone, second's kept: what stays after an abort is committed
    expect((await read(c.Guid)).Count).toBe(1);
  });

  it("can be called from server code with the same semantics", async () => {
    const c = await counter("server");
    log.length = 0;
    const outcome = await inTenant(db, tenantId, (session) =>
      invokeMethod(
        {
          session,
          model,
          tenant: { id: tenantId, features: new Set() },
          prompts: new PromptCollector(),
          query: async () => [],
        },
        { entity: Counter, name: "Bump", key: c.Guid, args: { failAt: 2 }, argsAsText: false },
        Bump,
      ),
    );
    expect(outcome).toMatchObject({
      status: "aborted",
      error: { code: "MethodAborted", message: "stopped at second" },
    });
    expect(log).toEqual(["run first", "run second", "undo first"]);
    expect((await read(c.Guid)).Count).toBe(0);
  });

  it("saves a save-on-completion method once at the end, and nothing when it aborts", async () => {
    const c = await counter("seal");
    log.length = 0;
    const failed = await api.call("POST", `/api/MsCounter(${c.Guid})/Seal`, { body: { fail: 1 } });
    expect(failed.status).toBe(400);
    expect(log).toEqual(["seal mark", "seal undo"]);
    expect(await read(c.Guid)).toMatchObject({ Sealed: null, Note: null });
    expect((await api.call("POST", `/api/MsCounter(${c.Guid})/Seal`)).status).toBe(204);
    expect(await read(c.Guid)).toMatchObject({ Sealed: "yes", Note: "sealed" });
  });

  it("keeps a Read method from writing", async () => {
    const c = await counter("peek");
    const res = await api.call("GET", `/api/MsCounter(${c.Guid})/Peek()`);
    expect(res.status).toBe(500);
    expect((await read(c.Guid)).Note).toBeNull();
  });

  it("answers 403 MethodUnavailable when every subscriber is behind a missing feature, 501 without subscribers", async () => {
    const c = await counter("gates");
    const gated = await api.call("GET", `/api/MsCounter(${c.Guid})/Gated()`);
    expect(gated.status).toBe(403);
    expect((await json(gated)).error.code).toBe("MethodUnavailable");
    const none = await api.call("GET", `/api/MsCounter(${c.Guid})/Unimplemented()`);
    expect(none.status).toBe(501);
    expect((await json(none)).error.code).toBe("MethodNotImplemented");
    await api.enable("Secret");
    // features are cached for a few seconds on writes; reads of methods see them at once
    await new Promise((r) => setTimeout(r, 5_100));
    expect(await json(await api.call("GET", `/api/MsCounter(${c.Guid})/Gated()`))).toEqual({
      "@odata.context": "/api/$metadata#Edm.String",
      value: "secret",
    });
  });
});
