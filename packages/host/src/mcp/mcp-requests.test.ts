/**
 * A tool call is work of the MCP request that carries it, as a `$batch` part is of its batch: the
 * tools call the services as the caller that request authenticated, so the host sees one request
 * per tool call — one authentication, one `request` log line with that request's id, one count in
 * the request metrics — and the tool's statements count toward it. Through the SDK's client over
 * real HTTP, on an app of its own whose log and metrics only this file's requests reach.
 */
import { type LogLine, loggedApp, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { connect, content, type Listening, listen, type McpTestClient } from "@bizdata/test-kit/mcp-host";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../app.js";
import { TenantShare } from "../limits/tenant-share.js";

/** a tenant share that counts the places it gives */
class CountedShare extends TenantShare {
  places = 0;

  override run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    this.places++;
    return super.run(tenant, work);
  }
}

const REQUEST_ID = "mcp-tool-calls";
let lines: readonly LogLine[];
const share = new CountedShare({ perTenant: 1, queue: 16, waitMs: 5000 });
let app: App;
let host: Listening;
let mcp: McpTestClient;

beforeAll(async () => {
  const { admin } = await signedInTenant("mcp-requests");
  ({ app, lines } = await loggedApp({ tenantShare: share }));
  host = await listen(app);
  mcp = await connect(host.url, await signIn(app, admin.tenantId, "admin"), {
    headers: { "X-Request-Id": REQUEST_ID },
  });
});

afterAll(async () => {
  await mcp?.close();
  await host?.close();
});

const scrape = async () => (await app.request("/metrics")).text();

/** what one tool call made the host see: its log lines, and how the request metrics moved */
async function observed(name: string, args: Record<string, unknown>) {
  const before = await scrape();
  const from = lines.length;
  const places = share.places;
  const result = await mcp.call(name, args);
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  // the line is written when the answer's stream has ended, which the client may see first
  await vi.waitFor(() => expect(lines.slice(from).some((l) => l.msg === "request")).toBe(true));
  // the client's probe for a standing stream (GET, 405) may come late after connecting: no tool call's
  const logged = lines.slice(from).filter((l) => !(l.method === "GET" && l.path === "/api/mcp"));
  const after = await scrape();
  const moved = (metric: string, labels: Record<string, string> = {}) =>
    sample(after, metric, labels) - sample(before, metric, labels);
  return {
    result: content(result),
    logged,
    places: share.places - places,
    // the scrapes are GETs
    requests: moved("bizdata_http_requests_total", { method: "POST" }),
    mcpStatements: moved("bizdata_http_request_statements_sum", { route: "/api/mcp" }),
  };
}

// the workflow the write started, which the commit names (each request of 2026-07-28 stands alone)
let workflowId: string | undefined;

describe("an MCP tool call is one request of the host's", () => {
  it.each([
    ["a read", "query_Product", () => ({ select: "SKU", top: 1 }), 1],
    [
      "a write, staged in a workflow it starts",
      "create_Product",
      () => ({ record: { SKU: "MCP-REQ-1" }, select: "SKU" }),
      2,
    ],
    // the workflow named by id is resumed (its index read), then committed
    ["a commit, with the steps it runs", "workflow_commit", () => ({ workflowId }), 2],
  ])(
    "%s: one authenticated request, one log line with its id, its statements counted, a place per call",
    async (_, name, args, calls) => {
      const seen = await observed(name, args());
      workflowId ??= seen.result.workflowId;
      // each request through the app authenticates and logs once: a tool call that made requests
      // of its own would add lines and requests of theirs
      expect(seen.logged.filter((l) => l.msg === "request")).toEqual([
        expect.objectContaining({ reqId: REQUEST_ID, method: "POST", path: "/api/mcp" }),
      ]);
      expect(seen.logged.every((l) => l.reqId === REQUEST_ID)).toBe(true);
      expect(seen.requests).toBe(1);
      // the tool's own (a read by the service is one statement): none when its work ran elsewhere
      expect(seen.mcpStatements).toBeGreaterThanOrEqual(1);
      // a place of the tenant's for each call of a service (starting the workflow, the step): the MCP
      // request takes none, since its answer streams on while a tool may wait for a person
      expect(seen.places).toBe(calls);
      if (name === "workflow_commit") expect(seen.result.status).toBe("saved");
    },
  );
});
