import type { Database } from "@bizdata/core";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { hostMetrics } from "./host-metrics.js";
import { observeRequests } from "./observe-requests.js";

/** an app whose commit and sign-in routes answer with the status and body of the case */
function stubApp(status: number, body: unknown, headers: Record<string, string> = {}) {
  const db = { stats: () => ({ size: 1, busy: 0, waiting: 0 }) } as unknown as Database;
  const metrics = hostMetrics(db);
  const app = new Hono();
  app.use(
    "*",
    observeRequests({
      db,
      logger: pino({ level: "silent" }),
      metrics,
      clientAddress: (peer) => peer,
      basePath: "/api",
    }),
  );
  const answer = (c: import("hono").Context) => c.json(body, status as 200, headers);
  app.post("/api/workflow/commit", answer);
  app.post("/api/auth/signin", answer);
  app.get("/api/*", answer);
  return { app, metrics: () => metrics.registry.metrics() };
}

describe("request outcomes", () => {
  it("reads a commit's outcome from its status and, for a 400, its error code", async () => {
    const cases: [number, unknown, string][] = [
      [200, { message: "Committed 2 changes." }, "committed"],
      [422, { message: "A question must be answered." }, "questionPending"],
      [400, { error: { code: "ValidationError", message: "…" } }, "rejected"],
      [400, { error: { code: "StagedRecordChanged", message: "…" } }, "conflict"],
      [400, { error: { code: "WorkflowIndexRequired", message: "…" } }, "failed"],
      [409, { error: { code: "WorkflowIndexConflict", message: "…" } }, "failed"],
      [503, { error: { code: "ServiceUnavailable", message: "…" } }, "failed"],
    ];
    for (const [status, body, outcome] of cases) {
      const { app, metrics } = stubApp(status, body);
      const res = await app.request("/api/workflow/commit", { method: "POST" });
      expect(res.status).toBe(status);
      // the body is still there for the client after the metrics read it
      expect(await res.json()).toEqual(body);
      expect(sample(await metrics(), "bizdata_workflow_commits_total", { outcome }), `${status} → ${outcome}`).toBe(1);
    }
  });

  it("reads a sign-in's outcome from its status", async () => {
    const cases: [number, string][] = [
      [200, "succeeded"],
      [401, "failed"],
      [429, "throttled"],
      [400, "invalid"],
      [413, "invalid"],
      [500, "error"],
    ];
    for (const [status, outcome] of cases) {
      const { app, metrics } = stubApp(status, {});
      await app.request("/api/auth/signin", { method: "POST" });
      expect(sample(await metrics(), "bizdata_signin_attempts_total", { outcome }), `${status}`).toBe(1);
    }
  });

  it("counts a workflow step as advanced only when the next index is one past the one sent", async () => {
    const cases: [string | undefined, number, string | undefined, string][] = [
      ["4", 200, "5", "advanced"],
      ["4", 200, "4", "failed"],
      ["4", 400, "4", "failed"],
      ["4", 409, "6", "indexConflict"],
      [undefined, 400, "4", "failed"],
      ["x", 200, "1", "failed"],
    ];
    for (const [index, status, next, outcome] of cases) {
      const { app, metrics } = stubApp(status, {}, next === undefined ? {} : { "Workflow-Next-Index": next });
      const headers: Record<string, string> = { "Workflow-Id": "0b7e6f9c-0000-4000-8000-000000000000" };
      if (index !== undefined) headers["Workflow-Index"] = index;
      await app.request("/api/Product", { headers });
      expect(sample(await metrics(), "bizdata_workflow_steps_total", { outcome }), `${index} ${status} ${next}`).toBe(
        1,
      );
    }
  });
});
