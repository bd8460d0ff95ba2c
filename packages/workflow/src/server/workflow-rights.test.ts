/**
 * Rights at every workflow step that changes data (issue 35), at the service level over the
 * examples' model: the workflow's owner with read rights only may find, resume and read the
 * workflow but not stage in it, commit it, close it or answer its questions — 403 naming the
 * write, nothing stored, the workflow open for the owner with write rights, who then commits it.
 * How a host's tokens and roles come to these rights is the host's test (its workflow-rights.test.ts).
 */
import { sampleFeatures } from "@bizdata/examples";
import { type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";

let alice: Client;
/** alice with read rights only, as a `bizdata.read` token of hers */
let reading: Client;

/** a request as a step of workflow `id` at `index` */
const stepAs = (who: Client, id: string, index: number, method: string, path: string, body?: unknown) =>
  who.step({ workflowId: id, index: String(index) }, method, path, body);

const nextIndex = async (who: Client, id: string) => {
  const res = await who.resume(id);
  expect(res.status).toBe(200);
  return res.body.nextIndex as number;
};

/** what `who` may not do to workflow `id` (at `index`): commit it and close it, each a 403 naming why */
async function expectRefused(who: Client, id: string, index: number) {
  const commit = await who.commit({ workflowId: id, index: String(index) });
  expect(commit.status).toBe(403);
  expect(commit.headers["Workflow-Next-Index"]).toBe(String(index));
  expect(commit.body.error).toEqual({
    code: "Forbidden",
    message: expect.stringMatching(
      /^Your role does not allow (creating|updating|deleting) \w+, which this workflow staged; committing it needs that right\.$/,
    ),
  });
  const close = await who.close(id);
  expect(close.status).toBe(403);
  expect(close.body.error.message).toMatch(/; closing it needs that right\.$/);
  // still there, at the same index, for its owner whatever the rights
  expect(await nextIndex(who, id)).toBe(index);
}

const post = async (entity: string, body: object) => {
  const res = await alice.request("POST", `/api/${entity}`, body);
  expect(res.status).toBe(201);
  return res.body.Guid as string;
};

const priceOf = async (product: string) =>
  (await alice.request("GET", `/api/Product(${product})?$select=Price`)).body.Price;

beforeAll(async () => {
  const harness = await workflowHarness();
  const tenantId = await harness.tenant("wf-rights", sampleFeatures);
  alice = harness.as(tenantId, "alice");
  reading = harness.as(
    tenantId,
    "alice",
    (access) => access.kind === "read" || (access.kind === "call" && access.type === "read"),
  );
  await post("Customer", { Id: "RC-1", CreditLimit: 500 });
});

describe("the workflow's owner with read rights only", () => {
  it("finds, resumes and reads the workflow but cannot stage, commit or close it; with write rights commits it", async () => {
    const product = await post("Product", { SKU: "R-1", Price: 100 });
    const doomed = await post("Customer", { Id: "RC-OLD" });
    const wf = await workflow(alice, "rights-read");
    expect((await wf.step("PATCH", `/api/Product(${product})`, { Price: 150 })).status).toBe(200);
    expect((await wf.step("POST", "/api/Customer", { Id: "RC-NEW" })).status).toBe(201);
    expect((await wf.step("DELETE", `/api/Customer(${doomed})`)).status).toBe(204);

    const found = await reading.findActive("rights-read");
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ workflowId: wf.id, nextIndex: 4 });
    const inside = await stepAs(reading, wf.id, 4, "GET", `/api/Product(${product})?$select=Price`);
    expect(inside.status).toBe(200);
    expect(inside.body.Price).toBe(150);
    // a staged write is the service's own check: refused, and the index stays
    const staging = await stepAs(reading, wf.id, 5, "PATCH", `/api/Product(${product})`, { Price: 1 });
    expect(staging.status).toBe(403);
    expect(staging.headers["Workflow-Next-Index"]).toBe("5");
    await expectRefused(reading, wf.id, 5);
    // 30 at once change nothing either: every one refused
    const attempts = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 === 0 ? reading.commit({ workflowId: wf.id, index: "5" }) : reading.close(wf.id),
      ),
    );
    expect(attempts.map((r) => r.status)).toEqual(Array(30).fill(403));

    // nothing stored: the main data as it was
    expect(await priceOf(product)).toBe(100);
    expect((await alice.request("GET", "/api/Customer/$count?$filter=Id eq 'RC-NEW'")).text).toBe("0");
    expect((await alice.request("GET", `/api/Customer(${doomed})`)).status).toBe(200);
    // the owner with write rights finds it intact and commits it
    expect(await nextIndex(alice, wf.id)).toBe(5);
    const committed = await alice.commit({ workflowId: wf.id, index: "5" });
    expect(committed.status).toBe(200);
    expect(committed.body.message).toBe("Committed 3 changes.");
    expect(await priceOf(product)).toBe(150);
    expect((await alice.request("GET", `/api/Customer(${doomed})`)).status).toBe(404);
  });
});

describe("the answer link", () => {
  it("needs the right to call the method that waits for the answer", async () => {
    const source = await post("SalesOrder", {
      DocNumber: "RA-SRC",
      Description: "from",
      SellToCustomer: "RC-1",
      Details: [{ Product: await post("Product", { SKU: "R-3", Price: 1 }), Quantity: 1 }],
    });
    const target = await post("SalesOrder", {
      DocNumber: "RA-TGT",
      SellToCustomer: "RC-1",
      Details: [{ Product: "R-3", Quantity: 2 }],
    });
    const wf = await workflow(alice);
    const call = await wf.step("POST", `/api/SalesOrder(${target})/ReorderFrom`, { salesOrderGuid: source });
    const question = call.body["@workflow.userprompts"][target][0];
    for (const choice of question.choices) {
      const refused = await reading.answer({ workflowId: wf.id, index: String(wf.index) }, choice.href);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({
        code: "Forbidden",
        message: "Your role does not allow calling SalesOrder.ReorderFrom, which this question waits to run.",
      });
    }
    // still open: the owner with write rights answers, the call runs, and commits
    expect((await wf.answer(question.choices[0].href)).status).toBe(200);
    expect((await wf.commit()).status).toBe(200);
    expect((await alice.request("GET", `/api/SalesOrder(${target})?$select=Description`)).body.Description).toBe(
      "from",
    );
  });

  it("needs the rights of the staged writes a save-time question continues", async () => {
    await post("Product", { SKU: "R-4", Price: 100 });
    const wf = await workflow(alice);
    const order = await wf.step("POST", "/api/SalesOrder", {
      DocNumber: "RA-BIG",
      SellToCustomer: "RC-1",
      Details: [{ Product: "R-4", Quantity: 6 }],
    });
    const guid = order.body.Guid;
    // over the customer's credit limit: commit asks first
    const asked = await wf.commit();
    expect(asked.status).toBe(422);
    const question = asked.body["@workflow.userprompts"][guid][0];
    const refused = await reading.answer({ workflowId: wf.id, index: String(wf.index) }, question.choices[0].href);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(
      /^Your role does not allow creating SalesOrder(Detail)?, which this workflow staged; answering its question needs that right\.$/,
    );
    expect((await wf.answer(question.choices[0].href)).status).toBe(200);
    expect((await wf.commit()).status).toBe(200);
    expect((await alice.request("GET", `/api/SalesOrder(${guid})`)).status).toBe(200);
  });
});
