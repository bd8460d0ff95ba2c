/**
 * The `$batch` executor over an injected handler and changeset runner, with no database: what
 * each part is sent as, how answers flow into later parts, and what a failure does to the rest.
 * (batch.test.ts runs the same executor over the service and the test database.)
 */
import { randomUUID } from "node:crypto";
import { defineModel, entity, ReadCache, ServiceError, type Session, text } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { defaultBodyLimits } from "../limits.js";
import { runInScope } from "../service/request-scope.js";
import { type BatchOptions, runBatch } from "./run-batch.js";

const model = defineModel([entity("RbThing", { naturalKey: "Code", fields: { Code: text({ required: true }) } })]);
const BASE = "/odata/v1";

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | null;
  readonly body?: unknown;
}

/** a fake service: POST creates (201 with Location), a body with `fail` answers 400, anything else 200 */
function fakeService() {
  const sent: Sent[] = [];
  const changesets: number[] = [];
  const handle = async (request: Request) => {
    const text = await request.text();
    const body = text === "" ? undefined : JSON.parse(text);
    sent.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.get("authorization"),
      ...(body !== undefined && { body }),
    });
    if (body?.fail) return Response.json({ error: { code: "ValidationError", message: "no" } }, { status: 400 });
    if (request.method === "POST") {
      const guid = randomUUID();
      return Response.json({ Guid: guid }, { status: 201, headers: { Location: `${BASE}/RbThing(${guid})` } });
    }
    return Response.json({ ok: true });
  };
  const options: BatchOptions = {
    model,
    basePath: BASE,
    bodyLimits: defaultBodyLimits,
    tenantId: "t",
    handle,
    changeset: async (_prefetch: (tx: Session) => Promise<unknown>, parts) => {
      changesets.push(sent.length);
      return parts({
        tenantId: "t",
        session: {} as Session,
        cache: new ReadCache(),
        prompts: () => {
          throw new Error("unused");
        },
        annotation: "@userprompts",
      });
    },
  };
  return { sent, changesets, options };
}

const batchRequest = (requests: unknown[]) =>
  new Request(`http://host${BASE}/$batch`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer caller" },
    body: JSON.stringify({ requests }),
  });

const answers = async (result: { body?: string }) =>
  (JSON.parse(result.body!) as { responses: { id: string; status: number; body?: any }[] }).responses;

describe("runBatch", () => {
  it("sends every part under the base path with the caller's credentials, $id standing for what was created", async () => {
    const { sent, options } = fakeService();
    const result = await runBatch(
      batchRequest([
        { id: "a", method: "POST", url: "RbThing", body: { Code: "A" } },
        { id: "b", method: "PATCH", url: "$a?$select=Code", body: { Code: "B" }, dependsOn: ["a"] },
        { id: "c", method: "POST", url: `${BASE}/RbThing`, body: { Code: "C", Same: "$a", Not: "$zz" } },
        { id: "d", method: "GET", url: `http://host${BASE}/RbThing?$top=1`, headers: { authorization: "x" } },
      ]),
      options,
    );
    expect(result.status).toBe(200);
    const created = (await answers(result))[0]!.body.Guid;
    expect(sent.map((s) => [s.method, s.url])).toEqual([
      ["POST", `http://host${BASE}/RbThing`],
      ["PATCH", `http://host${BASE}/RbThing(${created})?$select=Code`],
      ["POST", `http://host${BASE}/RbThing`],
      ["GET", `http://host${BASE}/RbThing?$top=1`],
    ]);
    expect(sent.every((s) => s.authorization === "Bearer caller")).toBe(true);
    expect(sent[2]!.body).toEqual({ Code: "C", Same: created, Not: "$zz" });
  });

  it("refuses a part whose absolute URL names another service (400 for that part), and sends nothing there", async () => {
    const { sent, options } = fakeService();
    const result = await runBatch(
      batchRequest([
        { id: "a", method: "GET", url: `http://other.example${BASE}/RbThing` },
        { id: "b", method: "GET", url: `https://host${BASE}/RbThing` },
        { id: "c", method: "GET", url: `http://host:8080${BASE}/RbThing` },
        { id: "d", method: "GET", url: `HTTP://HOST${BASE}/RbThing` },
      ]),
      options,
    );
    const parts = await answers(result);
    expect(parts.map((r) => r.status)).toEqual([400, 400, 400, 200]);
    expect(parts[0]!.body.error).toMatchObject({
      code: "InvalidBatch",
      message: expect.stringContaining("another service"),
    });
    expect(sent.map((s) => s.url)).toEqual([`http://host${BASE}/RbThing`]);
  });

  it("answers 424 to a part whose dependency failed, without sending it", async () => {
    const { sent, options } = fakeService();
    const result = await runBatch(
      batchRequest([
        { id: "a", method: "POST", url: "RbThing", body: { fail: true } },
        { id: "b", method: "GET", url: "RbThing", dependsOn: ["a"] },
      ]),
      options,
    );
    expect((await answers(result)).map((r) => r.status)).toEqual([400, 424]);
    expect(sent).toHaveLength(1);
  });

  it("runs a changeset through the injected runner and rolls it back as one when a part fails", async () => {
    const { sent, changesets, options } = fakeService();
    const result = await runBatch(
      batchRequest([
        { id: "1", atomicityGroup: "g", method: "POST", url: "RbThing", body: { Code: "X" } },
        { id: "2", atomicityGroup: "g", method: "POST", url: "RbThing", body: { fail: true } },
        { id: "3", atomicityGroup: "g", method: "POST", url: "RbThing", body: { Code: "Y" } },
        { id: "4", method: "PATCH", url: "$1", body: {} },
      ]),
      options,
    );
    expect(changesets).toEqual([0]);
    const responses = await answers(result);
    // the part referring to a rolled-back part's $1 depends on it
    expect(responses.map((r) => r.status)).toEqual([424, 400, 424, 424]);
    // the part after the failure never ran
    expect(sent).toHaveLength(2);
  });

  it("is refused inside a workflow step", async () => {
    const { options } = fakeService();
    const scope = {
      tenantId: "t",
      session: {} as Session,
      cache: new ReadCache(),
      prompts: () => {
        throw new Error("unused");
      },
      annotation: "@workflow.userprompts" as const,
      workflowId: randomUUID(),
    };
    const error = await runInScope(scope, () => runBatch(batchRequest([]), options)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("NotSupported");
  });
});
