/**
 * One validation for every write in a workflow (issue 35), at the service level: a method step
 * and a PATCH step breaking a constraint answer the same 400 and stage nothing, and a staged
 * virtual record whose save breaks one is refused at commit with the details a plain POST
 * answers, in `@workflow.userprompts`. The model and its cases are test/constraint-model.ts,
 * which the core tests run per write path too.
 */

import {
  constraintCases,
  constraintModel,
  createBody,
  patchBody,
  validOrder,
} from "@bizdata/test-kit/constraint-model";
import { dataOf } from "@bizdata/test-kit/host-app";
import { type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";

const { model } = constraintModel("Wk");
let admin: Client;

beforeAll(async () => {
  const harness = await workflowHarness({ model });
  admin = harness.as(await harness.tenant("wf-constraints"), "admin");
});

let numbers = 0;

/** a new valid order: its Guid, its line's, and how a GET shows it */
async function order() {
  const res = await admin.request("POST", "/api/WkOrder", validOrder(`W-${++numbers}`));
  expect(res.status).toBe(201);
  const { Guid } = res.body;
  const shown = await read(Guid);
  return { guid: Guid as string, line: shown.Lines[0].Guid as string, shown };
}

/** the order's every property and its lines' */
const shape = "$select=Number,Quantity,Note,Price,Status,Customer,Sealed,Logic&$expand=Lines($select=Code,Quantity)";
const read = async (guid: string) => dataOf((await admin.request("GET", `/api/WkOrder(${guid})?${shape}`)).body);
const count = async () => Number((await admin.request("GET", "/api/WkOrder/$count")).text);

describe("in a workflow", () => {
  it.each(constraintCases)(
    "a method step breaking $name is refused as a PATCH step is; commit stores nothing",
    async (c) => {
      const { guid, line, shown } = await order();
      const wf = await workflow(admin);
      const patch = await wf.step("PATCH", `/api/WkOrder(${guid})`, patchBody(c, line));
      expect(patch.status).toBe(400);
      const method = await wf.step("POST", `/api/WkOrder(${guid})/Seal`, { case: c.name });
      expect(method.status).toBe(400);
      expect(method.body).toEqual(patch.body);
      // a refused step stages nothing: the index did not move, the commit has nothing to store
      expect(wf.index).toBe(1);
      const commit = await wf.commit();
      expect(commit.body).toMatchObject({ message: "Committed 0 changes." });
      expect(await read(guid)).toEqual(shown);
    },
  );

  it.each(constraintCases)(
    "a staged virtual record whose save breaks $name is refused at commit with the POST's details, in @workflow.userprompts",
    async (c) => {
      const before = await count();
      const number = `W-${++numbers}`;
      const post = (await admin.request("POST", "/api/WkOrder", createBody(number, c))).body;
      const wf = await workflow(admin);
      expect((await wf.step("POST", "/api/WkEntry", { Number: number, Case: c.name })).status).toBe(201);
      const at = wf.index;
      const commit = await wf.commit();
      expect(commit.status).toBe(400);
      expect(wf.index).toBe(at);
      const body = commit.body;
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
