import { describe, expect, it } from "vitest";
import { WorkflowDisposedError } from "./errors.js";
import { FakeServer } from "./fake-server.fixture.js";
import { WorkflowClient } from "./workflow-client.js";

function setup() {
  const server = new FakeServer();
  return {
    server,
    client: new WorkflowClient({ baseUrl: "http://service.test", token: "alice", fetch: server.fetch }),
  };
}

describe("Workflow: dispose (spec 3.1)", () => {
  it("the owner's dispose closes the workflow once; later calls on the handle throw", async () => {
    const { server, client } = setup();
    const workflow = await client.create({ stagingKey: "k" });
    await workflow.post("/api/Ok");
    await workflow.dispose();
    await workflow.dispose();
    expect(server.workflow(workflow.id).open).toBe(false);
    expect(server.received.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
      `/api/workflow/${workflow.id}`,
    ]);
    expect(workflow.disposed).toBe(true);
    await expect(workflow.post("/api/Ok")).rejects.toBeInstanceOf(WorkflowDisposedError);
    await expect(workflow.commit()).rejects.toBeInstanceOf(WorkflowDisposedError);
    expect(await client.findActive("k")).toBe(undefined);
  });

  it("`await using` closes an owned workflow at the end of the scope", async () => {
    const { server, client } = setup();
    let id = "";
    {
      await using workflow = await client.create();
      id = workflow.id;
      await workflow.post("/api/Ok");
    }
    expect(server.workflow(id).open).toBe(false);
  });

  it("disposing a resumed handle sends nothing and leaves the workflow open for its owner", async () => {
    const { server, client } = setup();
    const owner = await client.create({ stagingKey: "k" });
    for (const resumed of [await client.resume(owner.id), await client.findActive("k")]) {
      if (resumed === undefined) throw new Error("not found");
      await resumed.post("/api/Ok");
      const before = server.received.length;
      await resumed.dispose();
      expect(server.received.length).toBe(before);
      await expect(resumed.get("/api/Ok")).rejects.toBeInstanceOf(WorkflowDisposedError);
    }
    expect(server.workflow(owner.id).open).toBe(true);
    await owner.post("/api/Ok");
    expect(owner.nextIndex).toBe(4);
  });

  it("close() closes the workflow from a resumed handle too", async () => {
    const { server, client } = setup();
    const owner = await client.create();
    const resumed = await client.resume(owner.id);
    await resumed.close();
    expect(server.workflow(owner.id).open).toBe(false);
    await expect(owner.post("/api/Ok")).rejects.toMatchObject({ status: 404 });
  });

  it("counts a 404 on close as closed (expired); another failure keeps the handle for a retry", async () => {
    const { server, client } = setup();
    const expired = await client.create();
    server.workflows.delete(expired.id);
    await expired.dispose();
    expect(expired.disposed).toBe(true);

    let down = true;
    const fetch: typeof server.fetch = async (input, init) =>
      down && init?.method === "DELETE" ? new Response("down", { status: 503 }) : server.fetch(input, init);
    const workflow = await new WorkflowClient({ baseUrl: "http://service.test", token: "alice", fetch }).create();
    await expect(workflow.dispose()).rejects.toMatchObject({ status: 503, code: "HttpError" });
    expect(workflow.disposed).toBe(false);
    await workflow.post("/api/Ok");
    down = false;
    await workflow.dispose();
    expect(server.workflow(workflow.id).open).toBe(false);
  });

  it("dispose waits for the calls queued before it", async () => {
    const { server, client } = setup();
    server.latency = () => 5;
    const workflow = await client.create();
    const calls = [workflow.post("/api/Ok"), workflow.post("/api/Ok")];
    await workflow.dispose();
    await Promise.all(calls);
    expect(server.received.slice(1).map((r) => [r.method, r.status])).toEqual([
      ["POST", 200],
      ["POST", 200],
      ["DELETE", 204],
    ]);
  });
});

describe("Workflow: serialized calls", () => {
  it("sends concurrent calls one at a time, in call order, each with the next index", async () => {
    const { server, client } = setup();
    const workflow = await client.create();
    server.latency = () => Math.floor(Math.random() * 8);
    const paths = ["/api/Ok", "/api/Invalid", "/api/Ask", "/api/Boom", "/api/Ok", "/api/Ok"];
    const results = await Promise.allSettled([...paths.map((p) => workflow.post(p)), workflow.commit()]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect(server.maxInFlight).toBe(1);
    expect(server.received.slice(1).map((r) => [r.path, r.index, r.status])).toEqual([
      ["/api/Ok", 1, 200],
      ["/api/Invalid", 2, 400],
      ["/api/Ask", 2, 200],
      ["/api/Boom", 3, 500],
      ["/api/Ok", 3, 200],
      ["/api/Ok", 4, 200],
      ["/api/workflow/commit", 5, 422],
    ]);
    expect(workflow.nextIndex).toBe(6);
  });
});
