/**
 * The client against the reference host (through `app.request`, no network): the fake server's
 * reading of the protocol checked against the real one — create, staged calls, a resync after
 * another handle's step, a save-time question (422, answer by link, 200), owner and resumed dispose.
 */
import { sampleFeatures } from "@bizdata/examples";
import { setFeature } from "@bizdata/host";
import { testDatabase } from "@bizdata/test-kit/database";
import { PASSWORD, signedInTenant } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";
import { WorkflowError } from "./errors.js";
import { questions } from "./prompts.js";
import { WorkflowClient } from "./workflow-client.js";

let client: WorkflowClient;

beforeAll(async () => {
  const { app, admin } = await signedInTenant("wf-client");
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  for (const [entity, body] of [
    ["Product", { SKU: "C-1", Price: 100 }],
    ["Customer", { Id: "CC-1", CreditLimit: 500 }],
  ] as const) {
    expect((await admin.request("POST", `/api/${entity}`, body)).status).toBe(201);
  }
  const signIn = await app.request("/api/auth/signin", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD }),
  });
  const { access_token } = (await signIn.json()) as { access_token: string };
  client = new WorkflowClient({
    baseUrl: "http://host.test",
    token: () => access_token,
    fetch: async (input, init) => app.request(String(input), init),
  });
});

describe("WorkflowClient against the reference host", () => {
  it("stages, resyncs, answers a save-time question and commits; dispose follows ownership", async () => {
    const workflow = await client.create({ stagingKey: "client-basket" });
    expect(workflow).toMatchObject({ owned: true, nextIndex: 1 });
    const created = await workflow.post("/api/SalesOrder?$select=TotalPrice", {
      DocNumber: "CO-1",
      SellToCustomer: "CC-1",
      Details: [{ Product: "C-1", Quantity: 6 }],
    });
    const order = created.body as { Guid: string; TotalPrice: number };
    expect([created.status, order.TotalPrice, workflow.nextIndex]).toEqual([201, 600, 2]);

    // another handle takes a step: the owner's next call meets a 409 and resyncs
    const resumed = await client.findActive("client-basket");
    if (resumed === undefined) throw new Error("not found");
    await resumed.patch(`/api/SalesOrder(${order.Guid})`, { Description: "from the other handle" });
    const read = await workflow.get(`/api/SalesOrder(${order.Guid})?$select=Description`);
    expect(read.body).toMatchObject({ Description: "from the other handle" });
    expect(workflow.nextIndex).toBe(4);
    await expect(workflow.patch(`/api/SalesOrder(${order.Guid})`, { DocNumber: 5 })).rejects.toBeInstanceOf(
      WorkflowError,
    );
    expect(workflow.nextIndex).toBe(4);

    // over the credit limit: a question at commit, answered through its link
    const pending = await workflow.commit();
    expect(pending.status).toBe("questionPending");
    const [question] = questions(pending.response);
    const proceed = question?.choices[0];
    if (proceed === undefined) throw new Error("no choice");
    await workflow.answer(proceed);
    expect((await workflow.commit()).status).toBe("saved");

    await resumed.dispose();
    expect((await client.resume(workflow.id)).owned).toBe(false);
    await workflow.dispose();
    await expect(client.resume(workflow.id)).rejects.toMatchObject({ status: 404 });
    expect(await client.findActive("client-basket")).toBe(undefined);
  });
});
