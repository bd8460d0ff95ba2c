/**
 * One validation for every write, through HTTP (issue 35): a Modify method and one that saves on
 * completion answer what a PATCH of the same values answers (400 ValidationError, the same
 * details), and store nothing; a workflow's steps and commit do the same at the service level
 * (packages/workflow/src/server/workflow-write-constraints.test.ts). The model and its cases are
 * test/constraint-model.ts, which the core tests run per write path too.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { constraintCases, constraintModel, patchBody, validOrder } from "../../../../test/constraint-model.js";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
import { type Caller, caller, config, dataOf, PASSWORD, signIn } from "../../../../test/host-app.js";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const { model } = constraintModel("Hc");
let admin: Caller;

beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, model);
  const app = createApp({ db, model, keys: await loadSigningKeys(db), config });
  const tenantId = uniqueTenant("constraints");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  admin = caller(app, tenantId, await signIn(app, tenantId, "admin"));
});

const json = async (res: Response) => (await res.json()) as any;
let numbers = 0;

/** a new valid order: its Guid, its line's, and how a GET shows it */
async function order() {
  const res = await admin.request("POST", "/api/HcOrder", validOrder(`H-${++numbers}`));
  expect(res.status).toBe(201);
  const { Guid } = await json(res);
  const shown = await read(Guid);
  return { guid: Guid as string, line: shown.Lines[0].Guid as string, shown };
}

/** the order's every property and its lines' */
const shape = "$select=Number,Quantity,Note,Price,Status,Customer,Sealed,Logic&$expand=Lines($select=Code,Quantity)";
const read = async (guid: string) => dataOf(await json(await admin.request("GET", `/api/HcOrder(${guid})?${shape}`)));

describe("a method's write", () => {
  it("that sets Quantity to −90 (integer min 0) on completion is a 400 OutOfRange, and the order keeps its value", async () => {
    const { guid } = await order();
    const res = await admin.request("POST", `/api/HcOrder(${guid})/Seal`, { case: "min" });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: {
        code: "ValidationError",
        message: "Quantity must be at least 0.",
        details: [{ code: "OutOfRange", message: "Quantity must be at least 0.", target: "Quantity" }],
      },
    });
    expect(await read(guid)).toMatchObject({ Quantity: 5, Sealed: null });
  });

  it.each(constraintCases)("breaking $name answers what a PATCH answers, and stores nothing", async (c) => {
    const { guid, line, shown } = await order();
    const patch = await admin.request("PATCH", `/api/HcOrder(${guid})`, patchBody(c, line));
    expect(patch.status).toBe(400);
    const refused = await json(patch);
    expect(refused.error.details).toEqual([expect.objectContaining({ code: c.code, target: c.target })]);
    for (const method of ["Apply", "Seal"]) {
      const res = await admin.request("POST", `/api/HcOrder(${guid})/${method}`, { case: c.name });
      expect(res.status, method).toBe(400);
      expect(await json(res), method).toEqual(refused);
    }
    expect(await read(guid)).toEqual(shown);
  });
});
