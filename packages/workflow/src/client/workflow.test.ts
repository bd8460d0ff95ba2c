import { describe, expect, it } from "vitest";
import { WorkflowError } from "./errors.js";
import { FakeServer } from "./fake-server.fixture.js";
import { messages, questions } from "./prompts.js";
import { WorkflowClient } from "./workflow-client.js";

async function setup(options: { maxResyncs?: number; fetch?: (server: FakeServer) => typeof fetch } = {}) {
  const { fetch: wrap, ...rest } = options;
  const server = new FakeServer();
  const client = new WorkflowClient({
    baseUrl: "http://service.test",
    token: "alice",
    fetch: wrap?.(server) ?? server.fetch,
    ...rest,
  });
  const workflow = await client.create();
  server.received.length = 0;
  return { server, client, workflow, sent: () => server.received.map((r) => [r.path, r.index, r.status]) };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("Workflow: the index protocol (spec 7)", () => {
  it("sends Workflow-Id and Workflow-Index and advances on every 2xx", async () => {
    const { server, workflow, sent } = await setup();
    const first = await workflow.post("/api/Ok", { Description: "x" });
    await workflow.patch("/api/Ok", { Description: "y" }, { Prefer: "return=minimal" });
    await workflow.get("/api/Ok");
    expect(first).toMatchObject({ status: 200, body: { ok: true }, prompts: {} });
    expect(sent()).toEqual([
      ["/api/Ok", 1, 200],
      ["/api/Ok", 2, 200],
      ["/api/Ok", 3, 200],
    ]);
    expect(workflow.nextIndex).toBe(4);
    expect(server.workflow(workflow.id).next).toBe(4);
  });

  it("keeps the index on a 400 and throws the error body's fields, response included", async () => {
    const { workflow, sent } = await setup();
    const failure = await failureOf(workflow.post("/api/Invalid", {}));
    expect(failure).toBeInstanceOf(WorkflowError);
    expect(failure).toMatchObject({
      status: 400,
      code: "ValidationError",
      target: "Total",
      details: [{ code: "ValidationError", message: "Bad.", target: "Total" }],
      response: { status: 400 },
    });
    expect(workflow.nextIndex).toBe(1);
    await workflow.post("/api/Ok");
    expect(sent()).toEqual([
      ["/api/Invalid", 1, 400],
      ["/api/Ok", 1, 200],
    ]);
  });

  it("keeps the index on a 500 and does not retry it", async () => {
    const { workflow, sent } = await setup();
    await expect(workflow.get("/api/Boom")).rejects.toMatchObject({ status: 500, code: "InternalError" });
    expect(workflow.nextIndex).toBe(1);
    expect(sent()).toEqual([["/api/Boom", 1, 500]]);
  });

  it("keeps the index after a failure without Workflow-Next-Index (a proxy's 502) and advances after a bare 2xx", async () => {
    let answer: Response | undefined;
    const proxy =
      (server: FakeServer): typeof fetch =>
      async (input, init) =>
        answer ?? server.fetch(input, init);
    const { workflow } = await setup({ fetch: proxy });
    answer = new Response("Bad Gateway", { status: 502 });
    await expect(workflow.get("/api/Ok")).rejects.toMatchObject({
      status: 502,
      code: "HttpError",
      response: { body: "Bad Gateway" },
    });
    expect(workflow.nextIndex).toBe(1);
    answer = new Response(null, { status: 204 });
    await workflow.get("/api/Ok");
    expect(workflow.nextIndex).toBe(2);
  });

  it("does not retry a network failure; a lost response is resynced by the next call", async () => {
    const { server, workflow, sent } = await setup();
    server.loseNextResponse = true;
    await expect(workflow.post("/api/Ok")).rejects.toThrow(TypeError);
    expect(workflow.nextIndex).toBe(1);
    await workflow.post("/api/Ok");
    expect(sent()).toEqual([
      ["/api/Ok", 1, 200],
      ["/api/Ok", 1, 409],
      ["/api/Ok", 2, 200],
    ]);
    expect(workflow.nextIndex).toBe(3);
  });

  it("on a 409 after another client's steps takes Workflow-Next-Index and resends once", async () => {
    const { server, workflow, sent } = await setup();
    server.advance(workflow.id, 3);
    await workflow.post("/api/Ok");
    expect(sent()).toEqual([
      ["/api/Ok", 1, 409],
      ["/api/Ok", 4, 200],
    ]);
    expect(workflow.nextIndex).toBe(5);
  });

  it("resends at most maxResyncs times, then throws the 409 with the index resynced", async () => {
    const { server, workflow, sent } = await setup({ maxResyncs: 2 });
    server.interference = 10;
    await expect(workflow.post("/api/Ok")).rejects.toMatchObject({ status: 409, code: "WorkflowIndexConflict" });
    expect(sent()).toEqual([
      ["/api/Ok", 1, 409],
      ["/api/Ok", 2, 409],
      ["/api/Ok", 3, 409],
    ]);
    expect(workflow.nextIndex).toBe(server.workflow(workflow.id).next);
  });

  it("with maxResyncs 0 never resends, yet the next call starts from the announced index", async () => {
    const { server, workflow, sent } = await setup({ maxResyncs: 0 });
    server.advance(workflow.id);
    await expect(workflow.post("/api/Ok")).rejects.toMatchObject({ status: 409 });
    await workflow.post("/api/Ok");
    expect(sent()).toEqual([
      ["/api/Ok", 1, 409],
      ["/api/Ok", 2, 200],
    ]);
  });

  it("does not resync from a 409 that announces no index", async () => {
    const conflict =
      (server: FakeServer): typeof fetch =>
      async (input, init) =>
        String(input).endsWith("/api/workflow")
          ? server.fetch(input, init)
          : Response.json({ error: { code: "Conflict", message: "x" } }, { status: 409 });
    const { workflow } = await setup({ fetch: conflict });
    await expect(workflow.get("/api/Ok")).rejects.toMatchObject({ status: 409, code: "Conflict" });
    expect(workflow.nextIndex).toBe(1);
  });
});

describe("Workflow: commit and questions (spec 3.2, 4.7)", () => {
  it("commits: 200 saved, the index advances, the workflow stays open for more", async () => {
    const { server, workflow } = await setup();
    await workflow.post("/api/Ok");
    const result = await workflow.commit();
    expect(result.status).toBe("saved");
    expect(messages(result.response).map((m) => m.severity)).toEqual(["info"]);
    expect(workflow.nextIndex).toBe(3);
    await workflow.post("/api/Ok");
    expect(await workflow.commit()).toMatchObject({ status: "saved" });
    expect(server.workflow(workflow.id).saved).toBe(2);
  });

  it("a pending question: 422 questionPending with the index advanced; answering by link then commits", async () => {
    const { server, workflow, sent } = await setup();
    const asked = await workflow.post("/api/Ask");
    const [question] = questions(asked);
    expect(question).toMatchObject({ group: "g-1.Total", default: "reject" });
    const pending = await workflow.commit();
    expect(pending.status).toBe("questionPending");
    expect(questions(pending.response).map((q) => q.id)).toEqual([question?.id]);
    expect(workflow.nextIndex).toBe(3);
    const accept = question?.choices.find((c) => c.key === "accept");
    if (accept === undefined) throw new Error("no accept choice");
    await workflow.answer(accept);
    expect(await workflow.commit()).toMatchObject({ status: "saved" });
    expect(sent().map(([path, index, status]) => [path, index, status])).toEqual([
      ["/api/Ask", 1, 200],
      ["/api/workflow/commit", 2, 422],
      [accept.href, 3, 200],
      ["/api/workflow/commit", 4, 200],
    ]);
    expect(server.workflow(workflow.id).questions.get(question?.id ?? "")).toBe("accept");
  });

  it("answers by prompt id and key through the documented link; a second answer is a 400", async () => {
    const { workflow } = await setup();
    const [question] = questions(await workflow.post("/api/Ask"));
    const choice = { promptId: question?.id ?? "", key: "reject" };
    await workflow.answer(choice);
    await expect(workflow.answer(choice)).rejects.toMatchObject({ status: 400 });
    await expect(workflow.answer({ promptId: "nope", key: "reject" })).rejects.toMatchObject({ status: 404 });
    expect(workflow.nextIndex).toBe(3);
  });

  it("a save-time validation failure: 400 rejected with details, the index kept; fixed, it saves", async () => {
    const { workflow } = await setup();
    await workflow.post("/api/Break");
    const rejected = await workflow.commit();
    expect(rejected.status).toBe("rejected");
    expect(messages(rejected.response).map((m) => m.severity)).toEqual(["error"]);
    expect(workflow.nextIndex).toBe(2);
    await workflow.post("/api/Fix");
    expect(await workflow.commit()).toMatchObject({ status: "saved" });
  });

  it("a commit answered with anything but 200, 422 or 400 throws, after resyncing a 409", async () => {
    const { server, workflow, sent } = await setup();
    server.advance(workflow.id);
    expect(await workflow.commit()).toMatchObject({ status: "saved" });
    expect(sent()).toEqual([
      ["/api/workflow/commit", 1, 409],
      ["/api/workflow/commit", 2, 200],
    ]);
    server.workflows.delete(workflow.id);
    await expect(workflow.commit()).rejects.toMatchObject({ status: 404, code: "NotFound" });
  });
});
