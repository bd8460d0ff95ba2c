/**
 * A `$batch` is one request however many parts it has: every part — the service's, a workflow
 * step, `$metadata`, the service document — is a call made within it, never a request sent to
 * the app again. So the app is entered once, authenticates once and writes one `request` log
 * line, with the batch's request id, counted once in the request metrics. On an app of its own,
 * whose log only this file's requests reach.
 */
import { type LogLine, loggedApp, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../app.js";

let app: App;
let lines: readonly LogLine[];
let token: string;

beforeAll(async () => {
  const { admin } = await signedInTenant("batch-requests");
  ({ app, lines } = await loggedApp());
  token = await signIn(app, admin.tenantId, "admin");
});

/** a POST as the caller, through `fetch` (the app's own by default) */
const send = async (
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  fetch: (request: Request) => Response | Promise<Response> = (request) => app.request(request),
) =>
  fetch(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
  );

describe("a $batch", () => {
  it("serves every part within its one request: the app entered once, one log line with its id, one count", async () => {
    const { workflowId } = (await (await send("/api/workflow")).json()) as { workflowId: string };
    const counted = { method: "POST", route: "/api/$batch", status: "200" };
    const before = sample(await (await app.request("/metrics")).text(), "bizdata_http_requests_total", counted);
    const from = lines.length;
    // every entry into the app through its fetch, this request's included
    const fetch = app.fetch;
    const entered = vi.fn(fetch);
    app.fetch = entered;
    const res = await send(
      "/api/$batch",
      {
        requests: [
          { id: "create", method: "POST", url: "Product", body: { SKU: "BR-1", Cost: 1, Price: 2 } },
          { id: "read", method: "GET", url: "Product?$filter=SKU eq 'BR-1'&$select=SKU" },
          { id: "meta", method: "GET", url: "$metadata" },
          { id: "doc", method: "GET", url: "/api/" },
          {
            id: "step",
            method: "POST",
            url: "Product",
            body: { SKU: "BR-STAGED", Cost: 1, Price: 2 },
            headers: { "workflow-id": workflowId, "workflow-index": "1" },
          },
        ],
      },
      { "X-Request-Id": "one-batch" },
      (request) => app.fetch(request),
    ).finally(() => {
      app.fetch = fetch;
    });
    expect(res.status).toBe(200);
    const { responses } = (await res.json()) as { responses: { id: string; status: number; headers: any }[] };
    expect(responses.map((r) => [r.id, r.status])).toEqual([
      ["create", 201],
      ["read", 200],
      ["meta", 200],
      ["doc", 200],
      ["step", 201],
    ]);
    // the step's part says which index its workflow expects next
    expect(responses[4]!.headers["workflow-next-index"]).toBe("2");
    // a part sent to the app again would enter it (and authenticate, and log) once more
    expect(entered).toHaveBeenCalledTimes(1);
    const logged = lines.slice(from).filter((l) => l.msg === "request");
    expect(logged).toHaveLength(1);
    expect(logged[0]!.reqId).toBe("one-batch");
    const after = await (await app.request("/metrics")).text();
    expect(sample(after, "bizdata_http_requests_total", counted)).toBe(before + 1);
  });
});
