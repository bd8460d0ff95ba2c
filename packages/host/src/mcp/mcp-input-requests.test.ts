/**
 * The current revision (MCP 2026-07-28) through the SDK's own client over real HTTP: no session
 * and no initialize, every request standing alone (the workflow's id is the handle an agent
 * passes on), and business logic's questions as multi-round-trip input requests — the tool
 * answers `input_required` with one elicitation per question and a signed request state, the
 * client asks the person and retries with the answers, and the tool goes on where it stopped.
 * The request state is checked: tampered, expired in its binding to another user, or used for
 * another call, it is a JSON-RPC error (-32602), and a question it carries is answered once. The
 * sample domain's credit-limit question is the question; what was saved is read over plain HTTP.
 */
import { type Caller, dataOf, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { connect, content, creditLimitTenant, type Elicit, type Listening } from "@bizdata/test-kit/mcp-host";
import type { FetchLike } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let host: Listening;
let admin: Caller;
let token: string;

const json = async (res: Response | Promise<Response>) => dataOf((await (await res).json()) as any);

/** the saved orders with that DocNumber, over plain HTTP */
const saved = async (doc: string) =>
  (await json(admin.request("GET", `/api/SalesOrder?$filter=DocNumber eq '${doc}'&$select=DocNumber,TotalPrice`)))
    .value;

beforeAll(async () => {
  ({ admin, host, token } = await creditLimitTenant("mcp-mrtr"));
});

afterAll(() => host?.close());

const order = (doc: string, quantity: number) => ({
  record: { DocNumber: doc, SellToCustomer: "C-LOW", Details: [{ Product: "P-10", Quantity: quantity }] },
  select: "DocNumber,TotalPrice",
});

/** a fetch that keeps each JSON-RPC message the client sent and the answers' bodies */
function watched() {
  const sent: any[] = [];
  const answers: string[] = [];
  const fetching: FetchLike = async (url, init) => {
    if (typeof init?.body === "string") sent.push(JSON.parse(init.body));
    const res = await fetch(url, init);
    answers.push(await res.clone().text());
    return res;
  };
  return { fetch: fetching, sent, answers };
}

const accept: Elicit = () => ({ action: "accept", content: { choice: "continue" } });

describe("MCP 2026-07-28: each request stands alone", () => {
  it("opens no session: a change without a workflow id starts one, and the id is the handle", async () => {
    const wire = watched();
    const mcp = await connect(host.url, token, { fetch: wire.fetch });
    try {
      expect(mcp.client.getProtocolEra()).toBe("modern");
      expect(mcp.transport.sessionId).toBeUndefined();
      expect(wire.sent.map((m) => m.method)).not.toContain("initialize");
      const first = content(await mcp.call("create_Product", { record: { SKU: "ALONE-1" }, select: "SKU" }));
      const second = content(await mcp.call("create_Product", { record: { SKU: "ALONE-2" }, select: "SKU" }));
      expect(second.workflowId).not.toBe(first.workflowId);
      // one request holds nothing for the next: a commit names its workflow
      const none = await mcp.call("workflow_commit", {});
      expect(content(none).error).toMatchObject({ code: "NoWorkflow", target: "workflowId" });
      const more = content(
        await mcp.call("create_Product", { record: { SKU: "ALONE-3" }, workflowId: first.workflowId }),
      );
      expect(more.workflowId).toBe(first.workflowId);
      expect(content(await mcp.call("workflow_commit", { workflowId: first.workflowId })).status).toBe("saved");
      const skus = await json(
        admin.request("GET", "/api/Product?$filter=startswith(SKU,'ALONE-')&$select=SKU&$orderby=SKU"),
      );
      expect(skus.value.map((p: { SKU: string }) => p.SKU)).toEqual(["ALONE-1", "ALONE-3"]);
      // every request carried the revision and the client's capabilities itself
      for (const message of wire.sent.filter((m) => m.id !== undefined)) {
        expect(message.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
      }
    } finally {
      await mcp.close();
    }
  });
});

describe("MCP 2026-07-28: questions as multi-round-trip input requests", () => {
  it("answers the credit-limit question through an input request and commits, in one tool call", async () => {
    const asked: any[] = [];
    const wire = watched();
    const mcp = await connect(host.url, token, {
      fetch: wire.fetch,
      elicit: (request) => {
        asked.push(request);
        return accept(request);
      },
    });
    try {
      const { workflowId, record } = content(await mcp.call("create_SalesOrder", order("MRTR-1", 8)));
      expect(await saved("MRTR-1")).toEqual([]);
      const committed = await mcp.call("workflow_commit", { workflowId });
      expect(committed.isError).toBeFalsy();
      expect(content(committed)).toMatchObject({
        workflowId,
        status: "saved",
        answered: [{ promptId: expect.any(String), choice: "continue" }],
        messages: [
          {
            text: "The order total 80 is over the credit limit 50 of customer C-LOW.",
            severity: "warning",
            group: `${record.Guid}.TotalPrice`,
          },
        ],
      });
      // the question as the person saw it: its text, its choices as a titled single select
      expect(asked).toEqual([
        {
          mode: "form",
          message: "The order total 80 is over the credit limit 50 of customer C-LOW. Save anyway?",
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
      // on the wire: the commit answered input_required, keyed by the question's promptId; the
      // retry (a new request id) sent the answer back with the request state byte for byte
      const commits = wire.sent.filter((m) => m.method === "tools/call" && m.params.name === "workflow_commit");
      expect(commits).toHaveLength(2);
      const [first, retry] = commits;
      const interim = wire.answers
        .map((a) => a.replace(/^(event|data): /gm, ""))
        .find((a) => a.includes("input_required"))!;
      const result = JSON.parse(interim.split("\n").find((l) => l.includes("input_required"))!).result;
      const promptId = content(committed).answered[0].promptId;
      expect(result).toMatchObject({ resultType: "input_required", requestState: expect.any(String) });
      expect(Object.keys(result.inputRequests)).toEqual([promptId]);
      expect(retry.id).not.toBe(first.id);
      expect(retry.params.requestState).toBe(result.requestState);
      expect(retry.params.inputResponses).toEqual({
        [promptId]: { action: "accept", content: { choice: "continue" } },
      });
      expect(await saved("MRTR-1")).toMatchObject([{ DocNumber: "MRTR-1", TotalPrice: 80 }]);
    } finally {
      await mcp.close();
    }
  });

  it("puts a step's own question (AskUser) to the person while staging, the step not run again", async () => {
    const post = (body: unknown) => json(admin.request("POST", "/api/SalesOrder", body));
    await post({ DocNumber: "MRTR-SRC", SellToCustomer: "C-LOW", Details: [{ Product: "P-10", Quantity: 3 }] });
    await post({ DocNumber: "MRTR-TGT", SellToCustomer: "C-LOW", Details: [{ Product: "P-10", Quantity: 1 }] });
    const source = (await json(admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'MRTR-SRC'"))).value[0].Guid;
    const asked: string[] = [];
    const mcp = await connect(host.url, token, {
      elicit: ({ message }) => {
        asked.push(message);
        return { action: "accept", content: { choice: "accept" } };
      },
    });
    try {
      const called = content(
        await mcp.call("call_SalesOrder_ReorderFrom", { key: "MRTR-TGT", parameters: { salesOrderGuid: source } }),
      );
      expect(called).toMatchObject({ staged: "SalesOrder.ReorderFrom", answered: [{ choice: "accept" }] });
      expect(asked).toEqual(["The order already has lines. Replace them?"]);
      expect(content(await mcp.call("workflow_commit", { workflowId: called.workflowId })).status).toBe("saved");
      const target = await json(
        admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'MRTR-TGT'&$expand=Details($select=Quantity)"),
      );
      // the lines copied once: the retry answered the question, it did not call the method again
      expect(target.value[0].Details.map((d: { Quantity: number }) => d.Quantity)).toEqual([3]);
    } finally {
      await mcp.close();
    }
  });

  it("gives the question back to the agent when the person declines, or the client cannot ask", async () => {
    for (const options of [{ elicit: (() => ({ action: "decline" })) as Elicit }, {}]) {
      const doc = `MRTR-NO-${"elicit" in options ? "DECLINED" : "ASKING"}`;
      const mcp = await connect(host.url, token, options);
      try {
        const { workflowId } = content(await mcp.call("create_SalesOrder", order(doc, 9)));
        const pending = content(await mcp.call("workflow_commit", { workflowId }));
        expect(pending).toMatchObject({
          workflowId,
          status: "questionPending",
          next: expect.stringContaining("workflow_answer"),
        });
        const [question] = pending.questions;
        expect(question.text).toBe("The order total 90 is over the credit limit 50 of customer C-LOW. Save anyway?");
        await mcp.call("workflow_answer", { promptId: question.promptId, choice: "continue", workflowId });
        expect(content(await mcp.call("workflow_commit", { workflowId })).status).toBe("saved");
        expect(await saved(doc)).toHaveLength(1);
      } finally {
        await mcp.close();
      }
    }
  });

  it("serves 30 agents at once, each asked its own question and committing its own order", async () => {
    const docs = Array.from({ length: 30 }, (_, i) => `MRTR-PAR-${i}`);
    const results = await Promise.all(
      docs.map(async (doc) => {
        const asked: string[] = [];
        const mcp = await connect(host.url, token, {
          elicit: (request) => {
            asked.push(request.message);
            return accept(request);
          },
        });
        try {
          const { workflowId } = content(await mcp.call("create_SalesOrder", order(doc, 6)));
          return { asked, committed: content(await mcp.call("workflow_commit", { workflowId })) };
        } finally {
          await mcp.close();
        }
      }),
    );
    for (const { asked, committed } of results) {
      expect(committed.status).toBe("saved");
      expect(asked).toEqual(["The order total 60 is over the credit limit 50 of customer C-LOW. Save anyway?"]);
    }
    const all = await json(
      admin.request("GET", "/api/SalesOrder?$filter=startswith(DocNumber,'MRTR-PAR-')&$count=true&$top=0"),
    );
    expect(all["@odata.count"]).toBe(30);
  });
});

describe("MCP 2026-07-28: the request state is the server's", () => {
  /** a JSON-RPC request of the current revision, as a client without the SDK sends it */
  const rpc = async (bearer: string, id: number, name: string, params: Record<string, unknown>) => {
    const res = await fetch(`${host.url}/api/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${bearer}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name,
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "curl", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
          },
        },
      }),
    });
    const text = await res.text();
    const data = text.startsWith("{")
      ? text
      : text
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6);
    return { status: res.status, body: JSON.parse(data) };
  };

  it("refuses a tampered state, another user's, and one for another call; answers a question once", async () => {
    const mcp = await connect(host.url, token);
    const { workflowId } = content(await mcp.call("create_SalesOrder", order("MRTR-STATE", 7)));
    await mcp.close();
    const asking = await rpc(token, 1, "workflow_commit", { arguments: { workflowId } });
    expect(asking.body.result).toMatchObject({ resultType: "input_required" });
    const { requestState, inputRequests } = asking.body.result;
    const [promptId] = Object.keys(inputRequests);
    const answer = { [promptId!]: { action: "accept", content: { choice: "continue" } } };
    const retry = (bearer: string, id: number, name: string, state: string, args: unknown = { workflowId }) =>
      rpc(bearer, id, name, { arguments: args, requestState: state, inputResponses: answer });

    const flipped = `${requestState.slice(0, -2)}${requestState.endsWith("A") ? "B" : "A"}${requestState.slice(-1)}`;
    const other = await signedInTenant("mcp-mrtr-other");
    const otherToken = await signIn(other.app, other.admin.tenantId, "admin");
    for (const refused of [
      await retry(token, 2, "workflow_commit", flipped),
      await retry(token, 3, "workflow_commit", "not a state"),
      // the state is bound to the user who was asked
      await retry(otherToken, 4, "workflow_commit", requestState),
    ]) {
      expect(refused.body.error).toMatchObject({ code: -32602, message: "Invalid or expired requestState" });
    }
    // the state names its call: another tool, or other arguments, is not it
    for (const [name, args] of [
      ["workflow_close", { workflowId }],
      ["workflow_commit", {}],
    ] as const) {
      const misused = await retry(token, 5, name, requestState, args);
      expect(misused.body.error).toEqual({
        code: -32602,
        message: "The requestState belongs to another tool call.",
      });
    }
    expect(await saved("MRTR-STATE")).toEqual([]);

    const done = await retry(token, 6, "workflow_commit", requestState);
    expect(done.body.result.structuredContent).toMatchObject({
      status: "saved",
      answered: [{ promptId, choice: "continue" }],
    });
    // the same state again: the question is answered already, which the workflow says
    const again = await retry(token, 7, "workflow_commit", requestState);
    expect(again.body.result).toMatchObject({ isError: true, structuredContent: { status: 400 } });
    expect(await saved("MRTR-STATE")).toHaveLength(1);
  });
});
