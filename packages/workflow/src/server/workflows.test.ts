/**
 * Workflows at the service level (spec 3.1, 4.6, 4.7, 7) over the examples' model: staged changes
 * that reads inside see and plain reads do not, the index protocol, commit with its save-time
 * questions, validation and conflicts, owners, staging keys, close, expiry, deferred method calls
 * (AskUser) and virtual entities.
 */
import { sampleFeatures } from "@bizdata/examples";
import { dataOf } from "@bizdata/test-kit/host-app";
import { type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";
import { WarmScopes } from "./warm-scopes.js";

let harness: Awaited<ReturnType<typeof workflowHarness>>;
let admin: Client;
let reader: Client;

beforeAll(async () => {
  harness = await workflowHarness();
  const tenantId = await harness.tenant("wf", sampleFeatures);
  admin = harness.as(tenantId, "admin");
  reader = harness.as(tenantId, "reader", (access) => access.kind === "read");
  for (const [entity, body] of [
    ["Product", { SKU: "W-1", Price: 100 }],
    ["Customer", { Id: "WC-1", CreditLimit: 500 }],
  ] as const) {
    expect((await admin.request("POST", `/api/${entity}`, body)).status).toBe(201);
  }
});

describe("workflows", () => {
  it("stages changes that reads inside see and plain reads do not, then commits them as one (422, answer, 200)", async () => {
    const wf = await workflow(admin);
    const created = await wf.step("POST", "/api/SalesOrder?$select=TotalPrice", {
      DocNumber: "WO-1",
      SellToCustomer: "WC-1",
      Details: [{ Product: "W-1", Quantity: 6 }],
    });
    expect(created.status).toBe(201);
    expect(wf.index).toBe(2);
    const order = created.body;
    expect(order.TotalPrice).toBe(600);
    // outside the workflow nothing is there yet
    expect((await admin.request("GET", `/api/SalesOrder(${order.Guid})`)).status).toBe(404);
    // inside, single reads, $expand and $apply see the staged state
    const inside = (
      await wf.step(
        "GET",
        `/api/SalesOrder(${order.Guid})?$expand=Details($select=Quantity;$expand=Product($select=SKU))`,
      )
    ).body;
    expect(dataOf(inside.Details)).toEqual([
      { Guid: expect.any(String), Quantity: 6, Product: { Guid: expect.any(String), SKU: "W-1" } },
    ]);
    const sum = (
      await wf.step(
        "GET",
        "/api/SalesOrderDetail?$apply=filter(SalesOrder/DocNumber eq 'WO-1')/aggregate(Quantity with sum as Q)",
      )
    ).body;
    expect(sum.value).toEqual([{ Q: 6 }]);
    // commit: the order is over the customer's credit limit, a save-time question appears
    const first = await wf.commit();
    expect(first.status).toBe(422);
    const prompts = first.body["@workflow.userprompts"];
    const question = prompts[order.Guid][0];
    expect(question.choices.map((c: { key: string }) => c.key)).toEqual(["continue", "cancel"]);
    expect(question.choices[0]).toMatchObject({
      href: `/api/userprompts/${question.id}/answer/continue`,
      method: "POST",
    });
    expect((await admin.request("GET", `/api/SalesOrder(${order.Guid})`)).status).toBe(404);
    const answered = await wf.answer(question.choices[0].href);
    expect(answered.status).toBe(200);
    expect((await wf.answer(question.choices[0].href)).status).toBe(400);
    const second = await wf.commit();
    expect(second.status).toBe(200);
    const stored = (
      await admin.request("GET", `/api/SalesOrder(${order.Guid})?$select=TotalPrice&$expand=Details($select=Quantity)`)
    ).body;
    expect(stored.TotalPrice).toBe(600);
    // the workflow stays open: edit and commit again
    expect((await wf.step("PATCH", `/api/SalesOrder(${order.Guid})`, { Description: "again" })).status).toBe(200);
    expect((await wf.commit()).status).toBe(200);
    expect((await admin.request("GET", `/api/SalesOrder(${order.Guid})?$select=Description`)).body.Description).toBe(
      "again",
    );
  });

  it("navigation and $search inside a workflow read its staged state", async () => {
    const wf = await workflow(admin);
    const created = await wf.step("POST", "/api/SalesOrder", {
      DocNumber: "WO-NAV",
      SellToCustomer: "WC-1",
      Details: [
        { Product: "W-1", Quantity: 1, Description: "staged blue line" },
        { Product: "W-1", Quantity: 2, Description: "other" },
      ],
    });
    expect(created.status).toBe(201);
    const order = created.body.Guid;
    const lines = await wf.step("GET", `/api/SalesOrder(Guid=${order})/Details?$search=blue&$select=Quantity`);
    expect(lines.body.value.map((d: { Quantity: number }) => d.Quantity)).toEqual([1]);
    const customer = await wf.step("GET", `/api/SalesOrder(${order})/SellToCustomer?$select=Id`);
    expect(customer.body.Id).toBe("WC-1");
    expect((await admin.request("GET", `/api/SalesOrder(${order})/Details`)).status).toBe(404);
    expect((await admin.close(wf.id)).status).toBe(204);
  });

  it("enforces the index: required, no reuse or skipping (409 with the next index), no advance on failure", async () => {
    const wf = await workflow(admin);
    const missing = await admin.step({ workflowId: wf.id, index: undefined }, "GET", "/api/Product");
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("WorkflowIndexRequired");
    expect(missing.headers["Workflow-Next-Index"]).toBe("1");
    expect((await wf.step("GET", "/api/Product/$count")).status).toBe(200);
    const reused = await wf.step("GET", "/api/Product/$count", undefined, 1);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe("WorkflowIndexConflict");
    expect(wf.index).toBe(2);
    expect((await wf.step("GET", "/api/Product/$count", undefined, 5)).status).toBe(409);
    const bad = await wf.step("POST", "/api/Product", { SKU: 5 });
    expect(bad.status).toBe(400);
    expect(wf.index).toBe(2);
    expect((await wf.step("POST", "/api/Product", { SKU: "W-STAGED" })).status).toBe(201);
    expect(wf.index).toBe(3);
  });

  it("answers a step whose query does not parse with its 400 and the next index, not advancing", async () => {
    const wf = await workflow(admin);
    const bad = await wf.step("GET", "/api/Product?$filter=SKU eq");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "QuerySyntaxError", target: "$filter" });
    expect(bad.headers["Workflow-Next-Index"]).toBe("1");
    expect((await wf.step("GET", "/api/Product/$count")).status).toBe(200);
    expect(wf.index).toBe(2);
  });

  it("answers a step whose statement fails in the database (a division by zero) with its 400 and the next index", async () => {
    const wf = await workflow(admin);
    expect((await wf.step("POST", "/api/Product", { SKU: "W-DIV", Cost: 1, Price: 2 })).status).toBe(201);
    const bad = await wf.step("GET", "/api/Product?$filter=Cost div 0 eq 1");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: "InvalidValue",
      message: "The query divides by zero for some record.",
    });
    expect(bad.headers["Workflow-Next-Index"]).toBe("2");
    expect((await wf.step("GET", "/api/Product/$count")).status).toBe(200);
    expect(wf.index).toBe(3);
  });

  it("rejects a commit whose save-time validation fails (400, index kept, nothing stored)", async () => {
    const wf = await workflow(admin);
    const order = (
      await wf.step("POST", "/api/SalesOrder", {
        DocNumber: "WO-BAD",
        SellToCustomer: "WC-1",
        Details: [{ Product: "W-1", Quantity: 1 }],
      })
    ).body;
    await wf.step("PATCH", `/api/SalesOrder(${order.Guid})`, { Details: [{ Product: "W-1", Quantity: 0 }] });
    const at = wf.index;
    const commit = await wf.commit();
    expect(commit.status).toBe(400);
    expect(wf.index).toBe(at);
    // spec 4.7: the details are in @workflow.userprompts, grouped by the record (the line) and property
    const body = commit.body;
    expect(body.error.code).toBe("ValidationError");
    const groups = Object.keys(body["@workflow.userprompts"]);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatch(/^[0-9a-f-]{36}\.Quantity$/);
    expect(body["@workflow.userprompts"][groups[0]!][0]).toMatchObject({ severity: "error", text: expect.any(String) });
    expect((await admin.request("GET", `/api/SalesOrder(${order.Guid})`)).status).toBe(404);
  });

  it("belongs to its owner, is found by staging key, and closes for good", async () => {
    const wf = await workflow(admin, "basket-1");
    const found = await admin.findActive("basket-1");
    expect(found.body).toEqual({ workflowId: wf.id, nextIndex: 1 });
    expect((await admin.findActive("nothing")).status).toBe(404);
    expect((await admin.resume(wf.id)).body).toEqual({ workflowId: wf.id, nextIndex: 1 });
    // another user of the same tenant does not see it, nor does another tenant
    expect((await reader.resume(wf.id)).status).toBe(404);
    const stranger = harness.as(await harness.tenant("wf-other"), "admin");
    expect((await stranger.resume(wf.id)).status).toBe(404);
    const first = { workflowId: wf.id, index: "1" };
    expect((await stranger.step(first, "GET", "/api/Product")).status).toBe(404);
    expect((await reader.step(first, "GET", "/api/Product")).status).toBe(404);
    await wf.step("POST", "/api/Product", { SKU: "W-CLOSED" });
    expect((await admin.close(wf.id)).status).toBe(204);
    expect((await admin.resume(wf.id)).status).toBe(404);
    const closed = await admin.request("GET", "/api/Product/$count?$filter=SKU eq 'W-CLOSED'");
    expect(closed.status).toBe(200);
    expect(closed.text).toBe("0");
  });
});

describe("staged deletes", () => {
  const product = async (sku: string) => {
    const res = await admin.request("POST", "/api/Product", { SKU: sku, Price: 10 });
    expect(res.status).toBe(201);
    return res.body.Guid as string;
  };
  const plainRead = async (guid: string) => (await admin.request("GET", `/api/Product(${guid})?$select=Price`)).status;

  it("leave the main data untouched until commit, and are discarded when the workflow closes", async () => {
    const guid = await product("DEL-1");
    const wf = await workflow(admin);
    expect((await wf.step("DELETE", `/api/Product(${guid})`)).status).toBe(204);
    // inside the workflow it is gone, outside it is still there
    expect((await wf.step("GET", `/api/Product(${guid})`)).status).toBe(404);
    expect(await plainRead(guid)).toBe(200);
    expect((await admin.close(wf.id)).status).toBe(204);
    expect(await plainRead(guid)).toBe(200);
  });

  it("commit as deletes, also after a staged change of the same record", async () => {
    const [kept, changed] = [await product("DEL-2"), await product("DEL-3")];
    const wf = await workflow(admin);
    expect((await wf.step("PATCH", `/api/Product(${changed})`, { Price: 99 })).status).toBe(200);
    expect((await wf.step("DELETE", `/api/Product(${changed})`)).status).toBe(204);
    expect((await wf.step("DELETE", `/api/Product(${kept})`)).status).toBe(204);
    expect(await plainRead(changed)).toBe(200);
    expect((await wf.commit()).status).toBe(200);
    expect(await plainRead(changed)).toBe(404);
    expect(await plainRead(kept)).toBe(404);
  });

  it("of a record that is not there (or already deleted in the workflow) answer 404 and keep the index", async () => {
    const guid = await product("DEL-4");
    const wf = await workflow(admin);
    expect((await wf.step("DELETE", `/api/Product(${guid})`)).status).toBe(204);
    const again = await wf.step("DELETE", `/api/Product(${guid})`);
    expect(again.status).toBe(404);
    expect(wf.index).toBe(2);
    expect(await plainRead(guid)).toBe(200);
  });
});

describe("commit after the main data changed", () => {
  const product = async (sku: string) => {
    const res = await admin.request("POST", "/api/Product", { SKU: sku, Cost: 10, Price: 20 });
    expect(res.status).toBe(201);
    return res.body.Guid as string;
  };
  const mainValues = async (guid: string) =>
    (await admin.request("GET", `/api/Product(${guid})?$select=Cost,Price,SalesDescription`)).body;

  it("merges changes to different properties", async () => {
    const guid = await product("CF-1");
    const wf = await workflow(admin);
    expect((await wf.step("PATCH", `/api/Product(${guid})`, { Price: 25 })).status).toBe(200);
    expect((await admin.request("PATCH", `/api/Product(${guid})`, { SalesDescription: "main" })).status).toBe(200);
    expect((await wf.commit()).status).toBe(200);
    expect(await mainValues(guid)).toMatchObject({ Price: 25, Cost: 10, SalesDescription: "main" });
  });

  it("refuses a change to a property that changed in the main data, with details, storing nothing", async () => {
    const [guid, other] = [await product("CF-2"), await product("CF-3")];
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${guid})`, { Price: 30 });
    await wf.step("PATCH", `/api/Product(${other})`, { Price: 31 });
    expect((await admin.request("PATCH", `/api/Product(${guid})`, { Price: 40 })).status).toBe(200);
    const at = wf.index;
    const commit = await wf.commit();
    expect(commit.status).toBe(400);
    expect(wf.index).toBe(at);
    const body = commit.body;
    expect(body.error.code).toBe("StagedRecordChanged");
    expect(Object.keys(body["@workflow.userprompts"])).toEqual([`${guid}.Price`]);
    expect(body["@workflow.userprompts"][`${guid}.Price`][0].severity).toBe("error");
    // nothing stored: the other record's staged change did not reach the main data either
    expect((await mainValues(guid)).Price).toBe(40);
    expect((await mainValues(other)).Price).toBe(20);
  });

  it("refuses a change to a record deleted in the main data, and a delete of a record changed there", async () => {
    const [deleted, changed] = [await product("CF-4"), await product("CF-5")];
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${deleted})`, { Price: 1 });
    await wf.step("DELETE", `/api/Product(${changed})`);
    expect((await admin.request("DELETE", `/api/Product(${deleted})`)).status).toBe(204);
    expect((await admin.request("PATCH", `/api/Product(${changed})`, { Cost: 11 })).status).toBe(200);
    const commit = await wf.commit();
    expect(commit.status).toBe(400);
    const prompts = commit.body["@workflow.userprompts"];
    expect(Object.keys(prompts).sort()).toEqual([deleted, `${changed}.Cost`].sort());
    expect((await mainValues(changed)).Cost).toBe(11);
  });
});

describe("workflow expiry", () => {
  it("closes an expired workflow and removes its staged state when the tenant next starts one", async () => {
    const own = harness.as(await harness.tenant("wf-expiry"), "admin");
    const wf = await workflow(own);
    expect((await wf.step("POST", "/api/Product", { SKU: "EXP-1" })).status).toBe(201);
    const { db } = harness;
    const staged = async () =>
      (
        await db.query<{ n: number }>({
          sql: "SELECT count(*)::int AS n FROM product__staged WHERE workflow_id = $1::uuid",
          params: [wf.id],
        })
      )[0]!.n;
    expect(await staged()).toBe(1);
    // time passes: the workflow's time-to-live runs out
    await db.query({
      sql: "UPDATE bizdata_workflow SET expires_at = now() - interval '1 second' WHERE id = $1::uuid",
      params: [wf.id],
    });
    expect((await own.resume(wf.id)).status).toBe(404);
    await workflow(own);
    expect(await staged()).toBe(0);
  });
});

describe("AskUser inside a workflow", () => {
  it("defers the method body with its arguments until the user chooses to continue", async () => {
    const post = async (entity: string, body: object) =>
      (await admin.request("POST", `/api/${entity}`, body)).body.Guid as string;
    const source = await post("SalesOrder", {
      DocNumber: "WA-SRC",
      Description: "from",
      SellToCustomer: "WC-1",
      Details: [{ Product: "W-1", Quantity: 1 }],
    });
    const target = await post("SalesOrder", {
      DocNumber: "WA-TGT",
      SellToCustomer: "WC-1",
      Details: [{ Product: "W-1", Quantity: 2 }],
    });
    const wf = await workflow(admin);
    // the target has lines: ReorderFrom asks before replacing them, and waits
    const call = await wf.step("POST", `/api/SalesOrder(${target})/ReorderFrom`, { salesOrderGuid: source });
    expect(call.status).toBe(200);
    const question = call.body["@workflow.userprompts"][target][0];
    expect(question.choices.map((c: { key: string }) => c.key)).toEqual(["accept", "reject"]);
    const description = async (step: boolean) =>
      (step
        ? await wf.step("GET", `/api/SalesOrder(${target})?$select=Description`)
        : await admin.request("GET", `/api/SalesOrder(${target})?$select=Description`)
      ).body.Description;
    expect(await description(true)).toBeNull();
    // the answer runs the captured call, staged like any step
    expect((await wf.answer(question.choices[0].href)).status).toBe(200);
    expect(await description(true)).toBe("from");
    expect(await description(false)).toBeNull();
    expect((await wf.commit()).status).toBe(200);
    expect(await description(false)).toBe("from");
  });
});

describe("virtual entities", () => {
  it("stages a SalesOrderImport with the rest and turns it into a real order at commit", async () => {
    const wf = await workflow(admin);
    const imported = await wf.step("POST", "/api/SalesOrderImport", {
      DocNumber: "IMP-1",
      Customer: "WC-1",
      Lines: "W-1:2",
    });
    expect(imported.status).toBe(201);
    // inside the workflow the import is there; no order exists anywhere yet
    expect((await wf.step("GET", "/api/SalesOrderImport/$count")).text).toBe("1");
    expect((await admin.request("GET", "/api/SalesOrder/$count?$filter=DocNumber eq 'IMP-1'")).text).toBe("0");
    expect((await wf.commit()).status).toBe(200);
    const order = (await admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'IMP-1'&$select=TotalPrice")).body;
    expect(dataOf(order.value)).toEqual([{ Guid: expect.any(String), TotalPrice: 200 }]);
    // and the import itself is never stored
    expect((await admin.request("GET", "/api/SalesOrderImport/$count")).text).toBe("0");
  });

  it("saves a SalesOrderImport at once on a plain request, and refuses unreadable lines", async () => {
    const plain = await admin.request("POST", "/api/SalesOrderImport", {
      DocNumber: "IMP-2",
      Customer: "WC-1",
      Lines: "W-1:1",
    });
    expect(plain.status).toBe(201);
    expect((await admin.request("GET", "/api/SalesOrder/$count?$filter=DocNumber eq 'IMP-2'")).text).toBe("1");
    const bad = await admin.request("POST", "/api/SalesOrderImport", {
      DocNumber: "IMP-3",
      Customer: "WC-1",
      Lines: "W-1",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].target).toBe("Lines");
  });

  it("keeps nothing of a SalesOrderImport saved on a plain request: reading, changing or deleting it is a 404", async () => {
    const created = await admin.request("POST", "/api/SalesOrderImport", {
      DocNumber: "IMP-4",
      Customer: "WC-1",
      Lines: "W-1:1",
    });
    const url = created.headers.Location!;
    for (const [method, body] of [["GET"], ["PATCH", { Description: "x" }], ["DELETE"]] as const) {
      const res = await admin.request(method, url, body);
      expect(res.status, method).toBe(404);
      expect(res.body.error, method).toMatchObject({
        code: "NotFound",
        message: expect.stringContaining("SalesOrderImport("),
      });
    }
  });

  it("deletes a SalesOrderImport staged in a workflow, so the commit creates no order", async () => {
    const wf = await workflow(admin);
    const staged = await wf.step("POST", "/api/SalesOrderImport", {
      DocNumber: "IMP-5",
      Customer: "WC-1",
      Lines: "W-1:1",
    });
    expect((await wf.step("DELETE", staged.headers.Location!)).status).toBe(204);
    expect((await wf.step("GET", "/api/SalesOrderImport/$count")).text).toBe("0");
    expect((await wf.commit()).status).toBe(200);
    expect((await admin.request("GET", "/api/SalesOrder/$count?$filter=DocNumber eq 'IMP-5'")).text).toBe("0");
  });
});

describe("warm scopes off", () => {
  it("gives the same answers with WarmWorkflowScopes off", async () => {
    const cold = await workflowHarness({ scopes: new WarmScopes({ enabled: false }) });
    const coldAdmin = cold.as(admin.tenantId, "admin");
    const wf = await workflow(coldAdmin);
    const order = (
      await wf.step("POST", "/api/SalesOrder", {
        DocNumber: "WO-COLD",
        SellToCustomer: "WC-1",
        Details: [{ Product: "W-1", Quantity: 6 }],
      })
    ).body;
    const first = await wf.commit();
    expect(first.status).toBe(422);
    const question = first.body["@workflow.userprompts"][order.Guid][0];
    expect((await wf.answer(question.choices[0].href)).status).toBe(200);
    expect((await wf.commit()).status).toBe(200);
  });
});
