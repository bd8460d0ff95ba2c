import { describe, expect, it, vi } from "vitest";
import { WorkflowError } from "./errors.js";
import { FakeServer } from "./fake-server.fixture.js";
import { WorkflowClient } from "./workflow-client.js";

const BASE = "http://service.test";

function setup(token: string | (() => string | Promise<string>) = "alice") {
  const server = new FakeServer();
  return { server, client: new WorkflowClient({ baseUrl: `${BASE}/`, token, fetch: server.fetch }) };
}

describe("WorkflowClient (spec 4.6)", () => {
  it("creates a workflow: the owner's handle at index 1, the staging key in the query", async () => {
    const { server, client } = setup();
    const workflow = await client.create({ stagingKey: "order entry/7" });
    expect(workflow).toMatchObject({ id: "wf-1", owned: true, nextIndex: 1 });
    expect(server.workflow("wf-1").stagingKey).toBe("order entry/7");
    expect(server.received[0]).toMatchObject({ method: "POST", path: "/api/workflow", token: "alice" });
  });

  it("starts at index 1 when the create response is the spec's bare {message, workflowId}", async () => {
    const fetch = async () => Response.json({ message: "created", workflowId: "wf-9" });
    const workflow = await new WorkflowClient({ baseUrl: BASE, token: "t", fetch }).create();
    expect(workflow).toMatchObject({ id: "wf-9", nextIndex: 1 });
  });

  it("finds the caller's active workflow by staging key as a resumed handle, and undefined on 404", async () => {
    const { server, client } = setup();
    const owner = await client.create({ stagingKey: "k" });
    server.advance(owner.id, 4);
    expect(await client.findActive("k")).toMatchObject({ id: owner.id, owned: false, nextIndex: 5 });
    expect(await client.findActive("other")).toBe(undefined);
    const bob = new WorkflowClient({ baseUrl: BASE, token: "bob", fetch: server.fetch });
    expect(await bob.findActive("k")).toBe(undefined);
    await owner.dispose();
    expect(await client.findActive("k")).toBe(undefined);
  });

  it("resumes by id with the server's next index; an unknown id throws the 404", async () => {
    const { server, client } = setup();
    const owner = await client.create();
    await owner.post("/api/Ok");
    server.advance(owner.id);
    expect(await client.resume(owner.id)).toMatchObject({ id: owner.id, owned: false, nextIndex: 3 });
    const failure = await client.resume("wf-404").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowError);
    expect(failure).toMatchObject({ status: 404, code: "NotFound" });
  });

  it("throws a WorkflowError for a failed create, with the standard body's code", async () => {
    const { client } = setup("");
    await expect(client.create()).rejects.toMatchObject({ name: "WorkflowError", status: 401, code: "Unauthorized" });
  });

  it("refuses a create response without a workflow id", async () => {
    const fetch = async () => new Response("ok", { status: 200 });
    await expect(new WorkflowClient({ baseUrl: BASE, token: "t", fetch }).create()).rejects.toMatchObject({
      code: "InvalidResponse",
      status: 200,
    });
  });

  it("asks a token provider once per request, retries included, and awaits an async one", async () => {
    const { server } = setup();
    let n = 0;
    const token = vi.fn(async () => `alice.${++n}`);
    const client = new WorkflowClient({ baseUrl: BASE, token, fetch: server.fetch });
    const workflow = await client.create();
    server.advance(workflow.id);
    await workflow.post("/api/Ok", { a: 1 });
    expect(token).toHaveBeenCalledTimes(3);
    expect(server.received.map((r) => [r.token, r.status])).toEqual([
      ["alice.1", 200],
      ["alice.2", 409],
      ["alice.3", 200],
    ]);
  });

  it("builds its own paths under basePath, for a service mounted elsewhere than /api", async () => {
    const sent: string[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      sent.push(`${init?.method} ${url.pathname}${url.search}`);
      const committing = url.pathname.endsWith("/commit");
      return Response.json(committing ? {} : { workflowId: "wf-1", nextIndex: 1 }, {
        headers: { "Workflow-Next-Index": "2" },
      });
    };
    const client = new WorkflowClient({ baseUrl: BASE, basePath: "/odata/v1/", token: "t", fetch });
    const workflow = await client.create({ stagingKey: "k" });
    await client.resume("wf-1");
    await client.findActive("k");
    await workflow.answer({ promptId: "q-1", key: "accept" });
    expect((await workflow.commit()).status).toBe("saved");
    await workflow.close();
    expect(sent).toEqual([
      "POST /odata/v1/workflow?stagingKey=k",
      "GET /odata/v1/workflow/wf-1",
      "GET /odata/v1/workflow/active?stagingKey=k",
      "POST /odata/v1/userprompts/q-1/answer/accept",
      "POST /odata/v1/workflow/commit",
      "DELETE /odata/v1/workflow/wf-1",
    ]);
  });

  it("refuses a maxResyncs that is not a whole number of at least 0", () => {
    for (const maxResyncs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new WorkflowClient({ baseUrl: BASE, token: "t", maxResyncs })).toThrow(RangeError);
    }
  });
});
