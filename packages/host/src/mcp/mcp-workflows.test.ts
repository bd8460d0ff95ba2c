/**
 * Writes through MCP go through a workflow, as a person's client makes them: staged (nothing in
 * the saved data before commit), business logic's questions put to the person by elicitation
 * when the client can ask, else returned to the agent and answered with a tool, then committed.
 * The sample domain's credit-limit question (examples/src/domain/sales-order-logic.ts) is the
 * question; what was saved is read back over plain HTTP. A client of a 2025 revision here, whose
 * session keeps its workflow between requests (the 2026-07-28 client: mcp-requests-alone.test.ts).
 */
import { randomUUID } from "node:crypto";
import { type Caller, dataOf } from "@bizdata/test-kit/host-app";
import {
  type ConnectOptions,
  connect,
  content,
  creditLimitTenant,
  type Elicit,
  type Listening,
} from "@bizdata/test-kit/mcp-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let host: Listening;
let admin: Caller;
let token: string;

/** the data of a JSON answer, without its control information (@odata.context, @odata.etag) */
const json = async (res: Response | Promise<Response>) => dataOf((await (await res).json()) as any);

/** the saved orders with that DocNumber, over plain HTTP */
const saved = async (doc: string) =>
  (
    await json(
      admin.request(
        "GET",
        `/api/SalesOrder?$filter=DocNumber eq '${doc}'&$select=DocNumber,TotalPrice&$expand=Details($select=Quantity;$expand=Product($select=SKU))`,
      ),
    )
  ).value;

beforeAll(async () => {
  ({ admin, host, token } = await creditLimitTenant("mcp-wf"));
});

afterAll(() => host?.close());

/** a client of a 2025 revision: a session, which keeps its workflow between requests */
const open = (options: ConnectOptions = {}) => connect(host.url, token, { revision: "2025-11-25", ...options });

const order = (doc: string, quantity: number) => ({
  record: { DocNumber: doc, SellToCustomer: "C-LOW", Details: [{ Product: "P-10", Quantity: quantity }] },
  select: "DocNumber,TotalPrice",
});

describe("MCP writes in a workflow", () => {
  it("stages an order by natural keys, returns the credit-limit question, takes the answer by tool, commits", async () => {
    const mcp = await open();
    try {
      const created = await mcp.call("create_SalesOrder", order("MCP-1", 8));
      expect(created.isError).toBeFalsy();
      const { workflowId, staged, record } = content(created);
      expect(staged).toBe("create");
      expect(record).toEqual({ Guid: expect.any(String), DocNumber: "MCP-1", TotalPrice: 80 });
      // nothing reaches the saved data before commit; the workflow's own reads see it
      expect(await saved("MCP-1")).toEqual([]);
      const filter = "DocNumber eq 'MCP-1'";
      expect(content(await mcp.call("query_SalesOrder", { filter })).value).toEqual([]);
      expect(content(await mcp.call("query_SalesOrder", { filter, workflowId })).value).toEqual([
        { Guid: record.Guid },
      ]);

      const first = content(await mcp.call("workflow_commit", {}));
      expect(first).toMatchObject({ workflowId, status: "questionPending" });
      const [question] = first.questions;
      expect(first.questions).toHaveLength(1);
      expect(question).toEqual({
        promptId: expect.any(String),
        text: "The order total 80 is over the credit limit 50 of customer C-LOW. Save anyway?",
        group: record.Guid,
        choices: [
          { key: "continue", label: "Save anyway" },
          { key: "cancel", label: "Do not save" },
        ],
        default: "continue",
      });
      expect(await saved("MCP-1")).toEqual([]);

      const answered = await mcp.call("workflow_answer", { promptId: question.promptId, choice: "continue" });
      expect(content(answered)).toMatchObject({
        workflowId,
        answered: [{ promptId: question.promptId, choice: "continue" }],
      });
      // a question is answered once: the API's refusal comes back as a tool error
      const again = await mcp.call("workflow_answer", { promptId: question.promptId, choice: "cancel" });
      expect(again.isError).toBe(true);
      expect(content(again)).toMatchObject({ status: 400, error: { message: expect.stringContaining("answered") } });

      const second = content(await mcp.call("workflow_commit", { workflowId }));
      expect(second).toMatchObject({ workflowId, status: "saved" });
      expect(second.messages).toContainEqual({
        text: "The order total 80 is over the credit limit 50 of customer C-LOW.",
        severity: "warning",
        group: `${record.Guid}.TotalPrice`,
      });
      expect(await saved("MCP-1")).toEqual([
        {
          Guid: record.Guid,
          DocNumber: "MCP-1",
          TotalPrice: 80,
          Details: [{ Guid: expect.any(String), Quantity: 8, Product: { Guid: expect.any(String), SKU: "P-10" } }],
        },
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("puts the question to the person through elicitation when the client can ask, then commits in one call", async () => {
    const asked: { message: string; requestedSchema: any }[] = [];
    const elicit: Elicit = (request) => {
      // what the person is asked (the request's _meta carries its progress token)
      const { mode, message, requestedSchema } = request as { mode: string; message: string; requestedSchema: any };
      asked.push({ mode, message, requestedSchema } as { message: string; requestedSchema: any });
      return { action: "accept", content: { choice: "continue" } };
    };
    const mcp = await open({ elicit });
    try {
      const { workflowId } = content(await mcp.call("create_SalesOrder", order("MCP-2", 6)));
      expect(await saved("MCP-2")).toEqual([]);
      const committed = content(await mcp.call("workflow_commit", {}));
      expect(committed).toMatchObject({
        workflowId,
        status: "saved",
        answered: [{ promptId: expect.any(String), choice: "continue" }],
      });
      expect(asked).toEqual([
        {
          mode: "form",
          message: "The order total 60 is over the credit limit 50 of customer C-LOW. Save anyway?",
          requestedSchema: {
            type: "object",
            properties: {
              choice: {
                type: "string",
                title: "Answer",
                oneOf: [
                  { const: "continue", title: "Save anyway" },
                  { const: "cancel", title: "Do not save" },
                ],
                default: "continue",
              },
            },
            required: ["choice"],
          },
        },
      ]);
      expect(await saved("MCP-2")).toMatchObject([{ DocNumber: "MCP-2", TotalPrice: 60 }]);
    } finally {
      await mcp.close();
    }
  });

  it("gives a declined question back to the agent; answering cancel makes the commit a rejection, nothing saved", async () => {
    const mcp = await open({ elicit: () => ({ action: "decline" }) });
    try {
      const { workflowId } = content(await mcp.call("create_SalesOrder", order("MCP-3", 9)));
      const pending = content(await mcp.call("workflow_commit", {}));
      expect(pending.status).toBe("questionPending");
      const [question] = pending.questions;
      await mcp.call("workflow_answer", { promptId: question.promptId, choice: "cancel" });
      const rejected = await mcp.call("workflow_commit", {});
      expect(rejected.isError).toBe(true);
      const text = "The order total 90 is over the credit limit 50 of customer C-LOW.";
      expect(content(rejected)).toMatchObject({
        workflowId,
        status: "rejected",
        error: {
          code: "ValidationError",
          details: [{ code: "SaveRejected", message: text, target: expect.stringMatching(/\.TotalPrice$/) }],
        },
        messages: [{ text, severity: "error" }],
      });
      expect(content(await mcp.call("workflow_close", {}))).toEqual({ workflowId, closed: true });
      expect(await saved("MCP-3")).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("updates and deletes by natural key, finding records staged earlier in the same workflow", async () => {
    const mcp = await open();
    try {
      const { workflowId } = content(await mcp.call("workflow_start", { stagingKey: "mcp-products" }));
      await mcp.call("create_Product", { record: { SKU: "P-NEW", Price: 1 } });
      await mcp.call("create_Product", { record: { SKU: "P-OLD", Price: 1 } });
      const updated = await mcp.call("update_Product", { key: "P-NEW", changes: { Price: 2.5 }, select: "SKU,Price" });
      expect(content(updated)).toMatchObject({ workflowId, staged: "update", record: { SKU: "P-NEW", Price: 2.5 } });
      expect(content(await mcp.call("delete_Product", { key: "P-OLD" }))).toEqual({ workflowId, staged: "delete" });
      const skus = "SKU eq 'P-NEW' or SKU eq 'P-OLD'";
      expect((await json(admin.request("GET", `/api/Product?$filter=${skus}`))).value).toEqual([]);
      expect(content(await mcp.call("workflow_commit", {})).status).toBe("saved");
      const after = await json(admin.request("GET", `/api/Product?$filter=${skus}&$select=SKU,Price`));
      expect(after.value).toEqual([{ Guid: expect.any(String), SKU: "P-NEW", Price: 2.5 }]);
    } finally {
      await mcp.close();
    }
  });

  it("stages a Modify method; its AskUser question is elicited during the step, and the body runs on accept", async () => {
    const post = (body: unknown) => json(admin.request("POST", "/api/SalesOrder", body));
    await post({
      DocNumber: "SRC-1",
      SellToCustomer: "C-LOW",
      Description: "from",
      Details: [{ Product: "P-10", Quantity: 3 }],
    });
    await post({ DocNumber: "TGT-1", SellToCustomer: "C-LOW", Details: [{ Product: "P-10", Quantity: 1 }] });
    const source = (await json(admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'SRC-1'"))).value[0].Guid;
    const asked: string[] = [];
    const mcp = await open({
      elicit: ({ message }) => {
        asked.push(message);
        return { action: "accept", content: { choice: "accept" } };
      },
    });
    try {
      const called = await mcp.call("call_SalesOrder_ReorderFrom", {
        key: "TGT-1",
        parameters: { salesOrderGuid: source },
      });
      expect(called.isError).toBeFalsy();
      expect(content(called)).toMatchObject({ staged: "SalesOrder.ReorderFrom", answered: [{ choice: "accept" }] });
      expect(asked).toEqual(["The order already has lines. Replace them?"]);
      expect((await saved("TGT-1"))[0].Details.map((d: { Quantity: number }) => d.Quantity)).toEqual([1]);
      expect(content(await mcp.call("workflow_commit", {})).status).toBe("saved");
      const target = await saved("TGT-1");
      expect(target[0]).toMatchObject({ TotalPrice: 30, Details: [{ Quantity: 3, Product: { SKU: "P-10" } }] });
    } finally {
      await mcp.close();
    }
  });

  it("reports a bad step as a tool error and goes on in the same workflow", async () => {
    const mcp = await open();
    try {
      const bad = await mcp.call("create_SalesOrder", {
        record: { DocNumber: "MCP-BAD", SellToCustomer: "C-NONE", Details: [{ Product: "P-10", Quantity: 1 }] },
      });
      expect(bad.isError).toBe(true);
      expect(content(bad)).toEqual({
        error: { code: "ReferenceNotFound", message: 'No Customer has Guid or Id "C-NONE".', target: "SellToCustomer" },
        status: 400,
      });
      const good = content(await mcp.call("create_SalesOrder", order("MCP-GOOD", 1)));
      expect(good.staged).toBe("create");
      // a record that is not there is the step's 404, not the workflow's: the session keeps its workflow
      const missing = await mcp.call("update_SalesOrder", { key: randomUUID(), changes: { Description: "x" } });
      expect(content(missing)).toMatchObject({ status: 404, error: { code: "NotFound" } });
      const more = content(await mcp.call("create_SalesOrder", order("MCP-GOOD-2", 1)));
      expect(more.workflowId).toBe(good.workflowId);
      expect(content(await mcp.call("workflow_commit", { workflowId: good.workflowId })).status).toBe("saved");
      // no workflow named and none held: a commit says what to do
      const other = await open();
      const none = await other.call("workflow_commit", {});
      expect(content(none).error).toEqual({
        code: "NoWorkflow",
        message:
          "No workflow is named and this connection holds none: give workflowId (a change's answer carries it), or stage a change first (that starts one).",
        target: "workflowId",
      });
      await other.close();
    } finally {
      await mcp.close();
    }
  });

  it("goes on in a workflow another session stepped meanwhile, its index resynced", async () => {
    const first = await open();
    const second = await open();
    const product = (sku: string) => ({ record: { SKU: sku }, select: "SKU" });
    try {
      const { workflowId } = content(await first.call("create_Product", product("MCP-SYNC-1")));
      // the owner's other session steps the workflow: the first one's index is behind now
      expect(content(await second.call("create_Product", { ...product("MCP-SYNC-2"), workflowId })).workflowId).toBe(
        workflowId,
      );
      const behind = await first.call("create_Product", product("MCP-SYNC-3"));
      expect(behind.isError).toBeFalsy();
      expect(content(behind)).toMatchObject({ workflowId, record: { SKU: "MCP-SYNC-3" } });
      expect(content(await first.call("workflow_commit", {})).status).toBe("saved");
      const skus = (await json(admin.request("GET", "/api/Product?$filter=startswith(SKU,'MCP-SYNC')&$select=SKU")))
        .value;
      expect(skus.map((p: { SKU: string }) => p.SKU).sort()).toEqual(["MCP-SYNC-1", "MCP-SYNC-2", "MCP-SYNC-3"]);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it("goes on with a workflow by id in another session; ending the session that started it closes it", async () => {
    const first = await open();
    const second = await open();
    try {
      const { workflowId } = content(await first.call("create_SalesOrder", order("MCP-4", 1)));
      const staged = await second.call("query_SalesOrder", { filter: "DocNumber eq 'MCP-4'", workflowId });
      expect(content(staged).value).toHaveLength(1);
      await second.call("update_SalesOrder", {
        key: "MCP-4",
        changes: { Description: "from the second session" },
        workflowId,
      });
      await first.close();
      const gone = await second.call("workflow_commit", { workflowId });
      expect(gone.isError).toBe(true);
      expect(content(gone)).toMatchObject({
        status: 404,
        error: { code: "NotFound", message: "There is no open workflow with this id for you." },
      });
      expect(await saved("MCP-4")).toEqual([]);
      // the session forgets the closed workflow: its next change starts a new one
      const next = content(await second.call("create_SalesOrder", order("MCP-5", 1)));
      expect(next.workflowId).not.toBe(workflowId);
      expect(content(await second.call("workflow_commit", {})).status).toBe("saved");
      expect(await saved("MCP-5")).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
