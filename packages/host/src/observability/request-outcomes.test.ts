import type { Database } from "@bizdata/core";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { hostMetrics } from "./host-metrics.js";
import { observeRequests } from "./observe-requests.js";

/** an app whose sign-in route answers with the status and body of the case */
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
  app.post("/api/auth/signin", answer);
  return { app, metrics: () => metrics.registry.metrics() };
}

describe("request outcomes", () => {
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
});
