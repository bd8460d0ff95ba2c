/**
 * The workflow endpoints as the host routes them (the runtime's behaviour is tested at the
 * service level, packages/workflow/src/server/workflows.test.ts): a step over HTTP answers with
 * `Workflow-Next-Index`, the commit and the answer link are routes of their own that need the
 * workflow headers, and the endpoints that manage workflows are no steps even with those headers.
 */
import { sampleFeatures } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { beforeAll, describe, expect, it } from "vitest";
import { setFeature } from "../tenants/tenant-admin.js";

const json = async (res: Response) => (await res.json()) as any;
let admin: Caller;

beforeAll(async () => {
  ({ admin } = await signedInTenant("wf"));
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  for (const [entity, body] of [
    ["Product", { SKU: "W-1", Price: 100 }],
    ["Customer", { Id: "WC-1", CreditLimit: 500 }],
  ] as const) {
    expect((await admin.request("POST", `/api/${entity}`, body)).status).toBe(201);
  }
});

describe("the workflow routes", () => {
  it("take a step, the commit and the answer link with the workflow headers, each answering the next index", async () => {
    const wf = await workflow(admin);
    const created = await wf.step("POST", "/api/SalesOrder", {
      DocNumber: "WO-HTTP",
      SellToCustomer: "WC-1",
      Details: [{ Product: "W-1", Quantity: 6 }],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("Workflow-Next-Index")).toBe("2");
    const order = await json(created);
    // over the customer's credit limit: the commit asks, the answer link continues it
    const first = await wf.step("POST", "/api/workflow/commit");
    expect(first.status).toBe(422);
    expect(wf.index).toBe(3);
    const question = (await json(first))["@workflow.userprompts"][order.Guid][0];
    expect((await wf.step("POST", question.choices[0].href)).status).toBe(200);
    expect(wf.index).toBe(4);
    expect((await wf.step("POST", "/api/workflow/commit")).status).toBe(200);
    expect((await admin.request("GET", `/api/SalesOrder(${order.Guid})`)).status).toBe(200);
  });

  it("answer the commit and the answer link without the workflow headers with 400", async () => {
    const commit = await admin.request("POST", "/api/workflow/commit");
    expect(commit.status).toBe(400);
    expect((await json(commit)).error.code).toBe("WorkflowIndexRequired");
    const answer = await admin.request("POST", `/api/userprompts/${crypto.randomUUID()}/answer/continue`);
    expect(answer.status).toBe(400);
    expect((await json(answer)).error.code).toBe("WorkflowIndexRequired");
  });
});

describe("the endpoints that manage workflows, reached with the workflow headers", () => {
  // a client may send Workflow-Id and Workflow-Index on every request; these are not steps
  const withHeaders = (wf: { id: string; index: number }) => ({
    "Workflow-Id": wf.id,
    "Workflow-Index": String(wf.index),
  });

  it("resume, find and create answer as without them, and leave the index where it was", async () => {
    const wf = await workflow(admin, "managed-1");
    expect((await wf.step("PATCH", "/api/Product(Guid=00000000-0000-0000-0000-000000000000)", {})).status).toBe(404);
    const resumed = await admin.request("GET", `/api/workflow/${wf.id}`, undefined, withHeaders(wf));
    expect([resumed.status, (await json(resumed)).nextIndex]).toEqual([200, 1]);
    const found = await admin.request("GET", "/api/workflow/active?stagingKey=managed-1", undefined, withHeaders(wf));
    expect([found.status, (await json(found)).workflowId]).toEqual([200, wf.id]);
    const other = await admin.request("POST", "/api/workflow", undefined, withHeaders(wf));
    expect(other.status).toBe(200);
    expect((await json(other)).workflowId).not.toBe(wf.id);
    // the index is still 1: the next step is taken at it
    expect((await wf.step("GET", "/api/Product?$top=1")).status).toBe(200);
    expect(wf.index).toBe(2);
  });

  it("close discards the staged changes, as without them", async () => {
    const res = await admin.request("POST", "/api/Product", { SKU: "MANAGED-2", Price: 10 });
    const guid = (await json(res)).Guid as string;
    const wf = await workflow(admin);
    expect((await wf.step("PATCH", `/api/Product(${guid})`, { Price: 11 })).status).toBe(200);
    const closed = await admin.request("DELETE", `/api/workflow/${wf.id}`, undefined, withHeaders(wf));
    expect(closed.status).toBe(204);
    expect((await admin.request("GET", `/api/workflow/${wf.id}`)).status).toBe(404);
    const step = await admin.request("GET", `/api/Product(${guid})`, undefined, withHeaders(wf));
    expect(step.status).toBe(404);
    expect((await json(await admin.request("GET", `/api/Product(${guid})?$select=Price`))).Price).toBe(10);
  });
});
