/**
 * The `$batch` executor over an injected service call and changeset runner, with no database:
 * what each part is sent as, how answers flow into later parts, and what a failure does to the
 * rest. (batch.test.ts runs the same executor over the service and the test database.)
 */
import { randomUUID } from "node:crypto";
import { defineModel, entity, ReadCache, ServiceError, type Session, text, type UnitOfWork } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { defaultBodyLimits } from "../limits.js";
import { type BatchOptions, runBatch } from "./run-batch.js";

const model = defineModel([entity("RbThing", { naturalKey: "Code", fields: { Code: text({ required: true }) } })]);
const BASE = "/odata/v1";

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | null;
  readonly body?: unknown;
  /** the changeset's unit the part was served in */
  readonly unit?: UnitOfWork;
}

/** a fake service: POST creates (201 with Location), a body with `fail` answers 400, anything else 200 */
function fakeService() {
  const sent: Sent[] = [];
  const changesets: number[] = [];
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(value),
  });
  const serve: BatchOptions["serve"] = async (request, headers, unit) => {
    const body = (await request.body?.()) as { fail?: boolean } | undefined;
    const query = request.search.size === 0 ? "" : `?${decodeURIComponent(String(request.search))}`;
    sent.push({
      method: request.method,
      url: `http://host${BASE}/${request.path}${query}`,
      authorization: headers.get("authorization"),
      ...(body !== undefined && { body }),
      ...(unit !== undefined && { unit }),
    });
    if (body?.fail) return json(400, { error: { code: "ValidationError", message: "no" } });
    if (request.method === "POST") {
      const guid = randomUUID();
      return json(201, { Guid: guid }, { Location: `${BASE}/RbThing(${guid})` });
    }
    return json(200, { ok: true });
  };
  const options: BatchOptions = {
    model,
    basePath: BASE,
    bodyLimits: defaultBodyLimits,
    tenantId: "t",
    serve,
    features: async () => new Set(),
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

  it("is refused as a workflow step: its parts name their workflows", async () => {
    const { options } = fakeService();
    const request = batchRequest([]);
    request.headers.set("Workflow-Id", randomUUID());
    const error = await runBatch(request, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("NotSupported");
  });

  it("serves the parts of a changeset in its unit, and the others in none", async () => {
    const { sent, options } = fakeService();
    await runBatch(
      batchRequest([
        { id: "1", atomicityGroup: "g", method: "POST", url: "RbThing", body: { Code: "X" } },
        { id: "2", atomicityGroup: "g", method: "POST", url: "RbThing", body: { Code: "Y" } },
        { id: "3", method: "GET", url: "RbThing" },
      ]),
      options,
    );
    expect(sent).toHaveLength(3);
    expect(sent[0]!.unit).toBeDefined();
    expect(sent[1]!.unit).toBe(sent[0]!.unit);
    expect(sent[2]!.unit).toBeUndefined();
  });

  it("answers $metadata and the service document itself, from the model and the tenant's features", async () => {
    const { sent, options } = fakeService();
    const parts = await answers(
      await runBatch(
        batchRequest([
          { id: "m", method: "GET", url: "$metadata" },
          { id: "j", method: "GET", url: "$metadata?$format=json" },
          { id: "d", method: "GET", url: `${BASE}/` },
          { id: "x", method: "GET", url: "$metadata?$format=yaml" },
          { id: "p", method: "POST", url: "$metadata" },
        ]),
        options,
      ),
    );
    expect(sent).toHaveLength(0);
    const [m, j, d, x, p] = parts;
    expect(m).toMatchObject({ status: 200, body: expect.stringContaining('<EntitySet Name="RbThing"') });
    expect(j!.status).toBe(200);
    expect(j!.body.$Version).toBe("4.0");
    expect(d!.body.value).toContainEqual({ name: "RbThing", kind: "EntitySet", url: "RbThing" });
    expect(x).toMatchObject({ status: 400, body: { error: { code: "UnsupportedFormat", target: "$format" } } });
    expect(p).toMatchObject({ status: 405, body: { error: { code: "MethodNotAllowed" } } });
  });
});
