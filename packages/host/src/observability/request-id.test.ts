import type { Database } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, caller, config, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type LogLine = Record<string, any>;
const lines: LogLine[] = [];
let failing = false;
let app: App;
let admin: Caller;

/** the shared database, failing every statement with an unexpected error while `failing` is set */
const breakable = (db: Database): Database => {
  const guard = <T>(run: () => Promise<T>) => (failing ? Promise.reject(new Error("disk on fire")) : run());
  return { ...db, query: (s) => guard(() => db.query(s)), transaction: (fn, o) => guard(() => db.transaction(fn, o)) };
};

beforeAll(async () => {
  const { admin: signedIn } = await signedInTenant("reqid");
  const db = await testDatabase();
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  app = createApp({ db: breakable(db), model: sampleModel, keys: await loadSigningKeys(db), config, logger });
  admin = caller(app, signedIn.tenantId, await signIn(app, signedIn.tenantId, "admin"));
});

/** the log lines written for request `id` */
const logged = (id: string) => lines.filter((l) => l.reqId === id);

describe("X-Request-Id", () => {
  it("keeps a sane id the caller sends, and puts it on the response and the request's log line", async () => {
    for (const id of ["abc", "req-1.2_3:4", "A".repeat(128), "0b7e6f9c-1d2e-4f00-8000-000000000001"]) {
      const res = await admin.request("GET", "/api/Product?$top=1", undefined, { "X-Request-Id": id });
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Request-Id")).toBe(id);
      expect(logged(id)).toEqual([
        expect.objectContaining({ level: 30, msg: "request", method: "GET", path: "/api/Product", status: 200 }),
      ]);
    }
  });

  it("generates a UUID when none is sent, and replaces one that is not a plain token of at most 128 characters", async () => {
    const sent = [undefined, "", "has space", "a".repeat(129), 'x"}', "line\tbreak", "é", "<script>"];
    const ids = new Set<string>();
    for (const id of sent) {
      const res = await admin.request(
        "GET",
        "/api/Product?$top=1",
        undefined,
        id === undefined ? {} : { "X-Request-Id": id },
      );
      const answered = res.headers.get("X-Request-Id") ?? "";
      expect(answered, JSON.stringify(id)).toMatch(UUID);
      expect(logged(answered)).toHaveLength(1);
      ids.add(answered);
    }
    expect(ids.size).toBe(sent.length);
  });

  it("is on error answers and 404s too", async () => {
    const cases: [string, Record<string, string>, number][] = [
      ["/nowhere", {}, 404],
      ["/api/Product", {}, 401],
      ["/api/NoSuchEntity", { Authorization: "" }, 404],
      ["/api/Product?$filter=(", { Authorization: "" }, 400],
    ];
    for (const [i, [path, headers, status]] of cases.entries()) {
      const id = `case-${i}`;
      const res =
        headers.Authorization === undefined
          ? await app.request(path, { headers: { "X-Request-Id": id } })
          : await admin.request("GET", path, undefined, { "X-Request-Id": id });
      expect(res.status, path).toBe(status);
      expect(res.headers.get("X-Request-Id"), path).toBe(id);
      expect(logged(id)).toEqual([expect.objectContaining({ status })]);
    }
  });

  // routes answer in different ways (c.json, the service's results, a route's own OData-Version, a
  // workflow step's header added after the answer): the headers every response carries are on all
  it("is on every kind of answer, with OData-Version", async () => {
    const wf = await workflow(admin);
    const cases: [string, () => Response | Promise<Response>, number, string][] = [
      ["health check", () => app.request("/health", { headers: { "X-Request-Id": "kind-0" } }), 200, "4.01"],
      [
        "API description",
        () => app.request("/api/openapi.json", { headers: { "X-Request-Id": "kind-1" } }),
        200,
        "4.01",
      ],
      [
        "refused sign-in",
        () =>
          app.request("/api/auth/signin", {
            method: "POST",
            headers: { "X-Request-Id": "kind-2", "content-type": "application/json" },
            body: "{}",
          }),
        400,
        "4.01",
      ],
      [
        "entity read",
        () => admin.request("GET", "/api/Product?$top=1", undefined, { "X-Request-Id": "kind-3" }),
        200,
        "4.01",
      ],
      [
        "metadata at 4.0",
        () =>
          admin.request("GET", "/api/$metadata", undefined, { "X-Request-Id": "kind-4", "OData-MaxVersion": "4.0" }),
        200,
        "4.0",
      ],
      [
        "workflow step",
        () => wf.step("GET", "/api/Product?$top=1", undefined, 1, { "X-Request-Id": "kind-5" }),
        200,
        "4.01",
      ],
    ];
    for (const [i, [what, send, status, version]] of cases.entries()) {
      const res = await send();
      expect(res.status, what).toBe(status);
      expect(res.headers.get("X-Request-Id"), what).toBe(`kind-${i}`);
      expect(res.headers.get("OData-Version"), what).toBe(version);
    }
    // the step's own header, added after its response was made, is there beside them
    expect(wf.index).toBe(2);
  });

  it("is on an unexpected 500 and on the error's log line, with the error", async () => {
    failing = true;
    try {
      const res = await admin.request("GET", "/api/Product", undefined, { "X-Request-Id": "boom-1" });
      expect(res.status).toBe(500);
      expect(res.headers.get("X-Request-Id")).toBe("boom-1");
      const body = await res.text();
      expect(body).not.toContain("disk on fire");
    } finally {
      failing = false;
    }
    const [failure, request] = logged("boom-1");
    expect(failure).toMatchObject({ level: 50, msg: "request failed", err: { message: "disk on fire" } });
    expect(request).toMatchObject({ level: 30, msg: "request", status: 500 });
  });

  it("is on a $batch's response, and its parts log under the batch's id", async () => {
    const requests = [
      { id: "1", method: "GET", url: "/api/Product?$top=1" },
      { id: "2", method: "GET", url: "/api/NoSuchEntity" },
    ];
    const res = await admin.request("POST", "/api/$batch", { requests }, { "X-Request-Id": "batch-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toBe("batch-1");
    const body = (await res.json()) as { responses: { status: number }[] };
    expect(body.responses.map((r) => r.status)).toEqual([200, 400]);
    // one HTTP request, one request line
    expect(logged("batch-1")).toEqual([expect.objectContaining({ path: "/api/$batch", status: 200 })]);
  });
});
