/**
 * A bulk load skips hooks and natural keys, not the properties' constraints (issue 35): a record
 * that breaks one is refused with the detail a PATCH of it gets, named by its place in its
 * batch, and nothing of its transaction is stored.
 */
import { randomUUID } from "node:crypto";
import { type AnyEntity, type Database, inTenant, ServiceError, TENANT_COLUMN, tableName } from "@bizdata/core";
import { constraintCases, constraintModel, validOrder } from "@bizdata/test-kit/constraint-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { migrateService } from "../schema.js";
import { createTenant } from "../tenants/tenant-admin.js";
import { bulkInsert } from "./bulk-insert.js";

const { model, Order } = constraintModel("Bc");
const Line = model.entity("BcLine")!;
let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrateService(db, model);
});

/** a valid order as stored: no collection, a Guid of its own */
const storedOrder = (number: string) => {
  const { Lines: _, ...order } = validOrder(number);
  return { Guid: randomUUID(), ...order };
};

const rows = (tenantId: string, def: AnyEntity) =>
  inTenant(db, tenantId, (tx) =>
    tx.query(
      sql`SELECT guid FROM ${sql.identifier(tableName(def))} WHERE ${sql.identifier(TENANT_COLUMN)} = ${tenantId}`,
    ),
  );

async function refusal(load: Promise<unknown>) {
  const thrown = await load.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(thrown instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(thrown)}`);
  return thrown;
}

describe("bulkInsert", () => {
  it.each(constraintCases)("refuses a record breaking $name with a PATCH's detail, at its place", async (c) => {
    const tenantId = uniqueTenant("bulk");
    await createTenant(db, tenantId);
    const order = storedOrder("B-1");
    // the line of a valid order, or the order itself, with the case's values
    const [entity, record, property] =
      c.line === undefined
        ? [Order, { ...order, ...c.change }, c.target]
        : [Line, { Guid: randomUUID(), Order: order.Guid, Code: "L-1", Quantity: 1, ...c.line }, c.target.slice(9)];
    const records = entity === Order ? [storedOrder("B-2"), record] : [record];
    const batches = [
      { entity: Order.name, records: [order] },
      { entity: entity.name, records },
    ];
    const err = await refusal(bulkInsert(db, model, tenantId, batches));
    const index = records.length - 1;
    const target = `${entity.name}[${index}].${property}`;
    expect(err).toMatchObject({ status: 400, code: "ValidationError" });
    expect(err.details).toEqual([{ code: c.code, target, message: expect.stringMatching(`^${pattern(target)} `) }]);
    // the valid batch before it waited for the same transaction
    expect(await rows(tenantId, Order)).toEqual([]);
  });

  it("loads records within their constraints, read-only properties included", async () => {
    const tenantId = uniqueTenant("bulk");
    await createTenant(db, tenantId);
    const order = { ...storedOrder("B-1"), Sealed: "yes" };
    const line = { Guid: randomUUID(), Order: order.Guid, Code: "L-1", Quantity: 0 };
    const batches = [
      { entity: Order.name, records: [order] },
      { entity: Line.name, records: [line] },
    ];
    expect(await bulkInsert(db, model, tenantId, batches)).toBe(2);
    expect(await rows(tenantId, Order)).toHaveLength(1);
    expect(await rows(tenantId, Line)).toHaveLength(1);
  });
});

/** `text` as a regular expression that matches it literally */
const pattern = (text: string) => text.replace(/[[\].]/g, (ch) => `\\${ch}`);
