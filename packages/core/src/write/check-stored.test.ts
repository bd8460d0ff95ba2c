/**
 * Every write path holds a record to the constraints a PATCH does, with the same error, and
 * stores nothing of a write that breaks one (issue 35): per constraint kind, a method that saves
 * in its body, a save-on-completion method, saveChanges itself, business logic on create and a
 * virtual entity's `save`, each against the PATCH (or POST) of the same values.
 */

import {
  applyCase,
  constraintCases,
  constraintModel,
  createBody,
  patchBody,
  validOrder,
} from "@bizdata/test-kit/constraint-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../errors.js";
import { invokeMethod } from "../methods/invoke-method.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database, Session } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { TENANT_COLUMN, tableName } from "../storage/naming.js";
import { inTenant } from "../storage/tenant-scope.js";
import { loadTrees } from "./record-tree.js";
import { createRecord, saveChanges, updateRecord, type WriteContext } from "./write-record.js";

const { model, Order, Entry, Apply, Seal } = constraintModel("Cs");
let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
});

const context = (session: Session, tenantId: string) => ({
  session,
  model,
  tenant: { id: tenantId, features: new Set<string>() },
  prompts: new PromptCollector(),
  query: async () => [],
});

/** runs `fn` in a transaction of its own and returns the ServiceError it fails with (rolled back) */
async function refusal(tenantId: string, fn: (ctx: ReturnType<typeof context>) => Promise<unknown>) {
  const thrown = await inTenant(db, tenantId, (session) => fn(context(session, tenantId))).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(thrown instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(thrown)}`);
  return thrown.toJSON().error as { code: string; message: string; details?: { target: string }[] };
}

/** a tenant with one valid order: its Guid, its first line's and the order as stored */
async function withOrder() {
  const tenantId = uniqueTenant("cs");
  const guid = await inTenant(db, tenantId, (s) => createRecord(context(s, tenantId), Order, validOrder("O-1")));
  const stored = await storedOrders(tenantId);
  return { tenantId, guid, line: (stored[0]!.Lines as { Guid: string }[])[0]!.Guid, stored };
}

/** every order of the tenant with its lines, by Number */
const storedOrders = (tenantId: string) =>
  inTenant(db, tenantId, async (session) => {
    const rows = await session.query<{ guid: string }>(
      sql`SELECT guid::text AS guid FROM ${sql.identifier(tableName(Order))}
        WHERE ${sql.identifier(TENANT_COLUMN)} = ${tenantId} ORDER BY number`,
    );
    const trees = await loadTrees(
      session,
      Order,
      tenantId,
      rows.map((r) => r.guid),
      { lock: false },
    );
    return [...trees.values()].map(
      (t): Record<string, unknown> => ({ ...t.record, Lines: t.items.get("Lines")!.map((i) => i.record) }),
    );
  });

describe.each(constraintCases)("a write breaking $name", (c) => {
  it("is refused by a PATCH with its detail (the reference)", async () => {
    const { tenantId, guid, line, stored } = await withOrder();
    const patch = await refusal(tenantId, (ctx) => updateRecord(ctx, Order, guid, patchBody(c, line)));
    expect(patch).toMatchObject({ code: "ValidationError", details: [{ code: c.code, target: c.target }] });
    expect(await storedOrders(tenantId)).toEqual(stored);
  });

  it.each([
    ["a method that saves in its body", Apply],
    ["a save-on-completion method", Seal],
  ])("is refused in %s, with the PATCH's error, and nothing is stored", async (_, declaration) => {
    const { tenantId, guid, line, stored } = await withOrder();
    const patch = await refusal(tenantId, (ctx) => updateRecord(ctx, Order, guid, patchBody(c, line)));
    const call = { entity: Order, name: declaration === Apply ? "Apply" : "Seal", key: guid, argsAsText: false };
    const method = await refusal(tenantId, (ctx) =>
      invokeMethod(ctx, { ...call, args: { case: c.name } }, declaration),
    );
    expect(method.code).toBe("ValidationError");
    expect(method.details).toEqual(patch.details);
    expect(await storedOrders(tenantId)).toEqual(stored);
  });

  it("is refused by saveChanges (server code's changes), with the PATCH's details", async () => {
    const { tenantId, guid, line, stored } = await withOrder();
    const patch = await refusal(tenantId, (ctx) => updateRecord(ctx, Order, guid, patchBody(c, line)));
    const changed = structuredClone(stored[0]!);
    applyCase(changed, c.name);
    const changes = c.line === undefined ? { ...c.change } : { Lines: changed.Lines };
    const saved = await refusal(tenantId, (ctx) => saveChanges(ctx, Order, guid, changes));
    expect(saved.details).toEqual(patch.details);
    expect(await storedOrders(tenantId)).toEqual(stored);
  });

  it.each([
    [
      "business logic on create",
      (ctx: WriteContext) => createRecord(ctx, Order, { ...validOrder("O-2"), Logic: c.name }),
    ],
    ["a virtual entity's save", (ctx: WriteContext) => createRecord(ctx, Entry, { Number: "O-2", Case: c.name })],
  ])("is refused in %s, with the POST's details, and nothing is stored", async (_, write) => {
    const { tenantId, stored } = await withOrder();
    const post = await refusal(tenantId, (ctx) => createRecord(ctx, Order, createBody("O-2", c)));
    expect(post).toMatchObject({ code: "ValidationError", details: [{ code: c.code, target: c.target }] });
    const refused = await refusal(tenantId, write);
    expect(refused.details).toEqual(post.details);
    expect(await storedOrders(tenantId)).toEqual(stored);
  });
});

describe("server code within the constraints", () => {
  it("stores what a method sets, read-only properties included", async () => {
    const { tenantId, guid } = await withOrder();
    const call = { entity: Order, name: "Seal", key: guid, args: {}, argsAsText: false };
    const outcome = await inTenant(db, tenantId, (s) => invokeMethod(context(s, tenantId), call, Seal));
    expect(outcome.status).toBe("done");
    expect((await storedOrders(tenantId))[0]).toMatchObject({ Sealed: "yes", Quantity: 5 });
  });

  it("lists every broken constraint of a record and its lines, each on its property", async () => {
    const { tenantId, guid, stored } = await withOrder();
    const changed = structuredClone(stored[0]!);
    applyCase(changed, "min");
    applyCase(changed, "enum");
    applyCase(changed, "line required");
    const { Quantity, Status, Lines } = changed;
    const error = await refusal(tenantId, (ctx) => saveChanges(ctx, Order, guid, { Quantity, Status, Lines }));
    expect(error.message).toBe("The record cannot be saved.");
    expect(error.details?.map((d) => d.target)).toEqual(["Lines[0].Code", "Quantity", "Status"]);
    expect(await storedOrders(tenantId)).toEqual(stored);
  });
});
