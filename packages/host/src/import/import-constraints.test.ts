/**
 * An import holds every row to the constraints a POST does (issue 35), whether the row breaks
 * one itself, the business logic breaks it after validation, or a virtual entity's `save` makes
 * a record that does: each such row is rejected with the POST's details and nothing of it is stored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, inTenant, TENANT_COLUMN, tableName, validateWrite } from "@bizdata/core";
import { constraintCases, constraintModel, createBody, validOrder } from "@bizdata/test-kit/constraint-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateService } from "../schema.js";
import { createTenant } from "../tenants/tenant-admin.js";
import { importFile } from "./import-file.js";

const { model, Order } = constraintModel("Ic");
const dir = mkdtempSync(join(tmpdir(), "bizdata-import-constraints-"));
const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
let db: Database;

beforeAll(async () => {
  db = await testDatabase();
  await migrateService(db, model);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** imports `rows` (JSON Lines) of `entity` into a new tenant: the summary, the report and the orders stored */
async function load(entity: string, rows: readonly unknown[]) {
  const tenantId = uniqueTenant("imp-c");
  await createTenant(db, tenantId);
  const path = join(dir, `${tenantId}.jsonl`);
  writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  const summary = await importFile({ db, model, tenantId, entity, file: path, stderr: quiet });
  const report = readFileSync(summary.reportFile, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { line: number; code: string; details: unknown });
  const stored = await inTenant(db, tenantId, (tx) =>
    tx.query<{ number: string }>(
      sql`SELECT number FROM ${sql.identifier(tableName(Order))} WHERE ${sql.identifier(TENANT_COLUMN)} = ${tenantId} ORDER BY number`,
    ),
  );
  return { summary, report, stored: stored.map((r) => r.number) };
}

describe.each(constraintCases)("an import of rows breaking $name", (c) => {
  // what a POST of the breaking order is refused with
  const post = validateWrite(model, Order, createBody("I-2", c), "create");
  const details = post.success ? [] : post.issues;

  it("rejects each with the POST's details, whether the row or the business logic breaks it", async () => {
    expect(details).toEqual([expect.objectContaining({ code: c.code, target: c.target })]);
    const rows = [validOrder("I-1"), createBody("I-2", c), { ...validOrder("I-3"), Logic: c.name }];
    const { summary, report, stored } = await load(Order.name, rows);
    expect(summary).toMatchObject({ rows: 3, loaded: 1, rejected: 2 });
    expect(report.map(({ line, code, details }) => ({ line, code, details }))).toEqual([
      { line: 2, code: "ValidationError", details },
      { line: 3, code: "ValidationError", details },
    ]);
    expect(stored).toEqual(["I-1"]);
  });

  it("rejects a virtual record whose save makes an order breaking it", async () => {
    const rows = [{ Number: "I-1" }, { Number: "I-2", Case: c.name }];
    const { summary, report, stored } = await load("IcEntry", rows);
    expect(summary).toMatchObject({ rows: 2, rejected: 1 });
    expect(report.map(({ line, code, details }) => ({ line, code, details }))).toEqual([
      { line: 2, code: "ValidationError", details },
    ]);
    expect(stored).toEqual(["I-1"]);
  });
});
