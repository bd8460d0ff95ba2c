/**
 * One validation for every write, through HTTP (issue 35): a workflow's steps and commit answer
 * what a PATCH of the same values answers (400 ValidationError, the same details), and store
 * nothing; a Modify method and one that saves on completion, in packages/odata's tests, too. The model and its cases are
 * test/constraint-model.ts, which the core tests run per write path too.
 */

import {
  constraintCases,
  constraintModel,
  createBody,
  patchBody,
  validOrder,
} from "@bizdata/test-kit/constraint-model";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, config, dataOf, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { beforeAll, describe, expect, it } from "vitest";
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
const count = async () => Number(await (await admin.request("GET", "/api/HcOrder/$count")).text());

describe("in a workflow", () => {
  it.each(constraintCases)(
    "a method step breaking $name is refused as a PATCH step is; commit stores nothing",
    async (c) => {
      const { guid, line, shown } = await order();
      const wf = await workflow(admin);
      const patch = await wf.step("PATCH", `/api/HcOrder(${guid})`, patchBody(c, line));
      expect(patch.status).toBe(400);
      const refused = await json(patch);
      const method = await wf.step("POST", `/api/HcOrder(${guid})/Seal`, { case: c.name });
      expect(method.status).toBe(400);
      expect(await json(method)).toEqual(refused);
      // a refused step stages nothing: the index did not move, the commit has nothing to store
      expect(wf.index).toBe(1);
      const commit = await wf.step("POST", "/api/workflow/commit");
      expect(await json(commit)).toMatchObject({ message: "Committed 0 changes." });
      expect(await read(guid)).toEqual(shown);
    },
  );

  it.each(constraintCases)(
    "a staged virtual record whose save breaks $name is refused at commit with the POST's details, in @workflow.userprompts",
    async (c) => {
      const before = await count();
      const number = `H-${++numbers}`;
      const post = await json(await admin.request("POST", "/api/HcOrder", createBody(number, c)));
      const wf = await workflow(admin);
      expect((await wf.step("POST", "/api/HcEntry", { Number: number, Case: c.name })).status).toBe(201);
      const at = wf.index;
      const commit = await wf.step("POST", "/api/workflow/commit");
      expect(commit.status).toBe(400);
      expect(wf.index).toBe(at);
      const body = await json(commit);
      expect(body.error.code).toBe("ValidationError");
      expect(body.error.details).toEqual(post.error.details);
      expect(body["@workflow.userprompts"]).toEqual({
        global: post.error.details.map((d: { message: string }) => ({
          id: expect.any(String),
          severity: "error",
          text: d.message,
        })),
      });
      expect(await count()).toBe(before);
    },
  );
});
