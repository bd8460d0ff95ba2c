/**
 * The reference host's app listening on a loopback port (@hono/node-server), and MCP clients of
 * the SDK's own (`Client` over `StreamableHTTPClientTransport`) connected to it with a bearer
 * token, as an agent host connects: the MCP tests drive the endpoint through real HTTP. A client
 * speaks the current revision (2026-07-28: no session, every request standing alone) unless a
 * 2025 revision is asked for, which it opens with `initialize` and keeps as a session.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sampleFeatures } from "@bizdata/examples";
import { setFeature } from "@bizdata/host";
import { serve } from "@hono/node-server";
import {
  type CallToolResult,
  Client,
  type ElicitResult,
  type FetchLike,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type LoggingMessageNotification,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { testDatabase } from "./database.js";
import { type Caller, signedInTenant, signIn } from "./host-app.js";

type App = { fetch: (request: Request, env?: unknown) => Response | Promise<Response> };

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/** `app` served on 127.0.0.1 at a free port */
export async function listen(app: App): Promise<Listening> {
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s as Server));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** the revision of MCP a test client speaks */
export type Revision = "2026-07-28" | "2025-11-25" | "2025-06-18" | "2025-03-26";

export const CURRENT: Revision = "2026-07-28";

/** answers an elicitation (a question put to the person); undefined leaves the capability undeclared */
export type Elicit = (request: { message: string; requestedSchema: unknown }) => ElicitResult | Promise<ElicitResult>;

export interface McpTestClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly revision: Revision;
  /** the log notifications the server sent, in order */
  readonly logs: LoggingMessageNotification["params"][];
  /**
   * calls a tool and returns its result (structured content and all); `logLevel` asks for log
   * notifications of this call (2026-07-28: per request; a 2025 session sets it with setLoggingLevel)
   */
  call(name: string, args?: Record<string, unknown>, options?: { logLevel?: LoggingLevel }): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly elicit?: Elicit;
  readonly basePath?: string;
  readonly headers?: Record<string, string>;
  /** default: the current revision */
  readonly revision?: Revision;
  /** the transport's fetch (to watch the requests it sends) */
  readonly fetch?: FetchLike;
}

/** an SDK client connected to `{url}{basePath}/mcp` with `token` (and `headers` on every request) */
export async function connect(url: string, token: string, options: ConnectOptions = {}): Promise<McpTestClient> {
  const revision = options.revision ?? CURRENT;
  const client = new Client(
    { name: "bizdata-test", version: "1.0.0" },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      ...(revision === CURRENT
        ? { versionNegotiation: { mode: { pin: CURRENT } } }
        : { supportedProtocolVersions: [revision] }),
    },
  );
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler("elicitation/create", async (request) =>
      elicit(request.params as { message: string; requestedSchema: unknown }),
    );
  }
  const logs: LoggingMessageNotification["params"][] = [];
  client.setNotificationHandler("notifications/message", (notification) => {
    logs.push(notification.params);
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${options.basePath ?? "/api"}/mcp`), {
    requestInit: { headers: { ...options.headers, Authorization: `Bearer ${token}` } },
    ...(options.fetch && { fetch: options.fetch }),
  });
  await client.connect(transport);
  return {
    client,
    transport,
    revision,
    logs,
    call: async (name, args = {}, { logLevel } = {}) =>
      client.callTool({
        name,
        arguments: args,
        ...(logLevel !== undefined && { _meta: { [LOG_LEVEL_META_KEY]: logLevel } }),
      }),
    close: async () => {
      if (transport.sessionId !== undefined) await transport.terminateSession();
      await client.close();
    },
  };
}

/** the structured content of a tool result (what the tests read) */
export const content = (result: CallToolResult): any => result.structuredContent;

/**
 * A tenant for the workflow tools' tests, served on a free port: the sample features on, a
 * product P-10 at price 10 and a customer C-LOW whose credit limit of 50 a larger order exceeds
 * (the credit-limit question), and an admin's token
 */
export async function creditLimitTenant(name: string): Promise<{ admin: Caller; host: Listening; token: string }> {
  const tenant = await signedInTenant(name);
  const { admin } = tenant;
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  for (const [entity, body] of [
    ["Product", { SKU: "P-10", Price: 10 }],
    ["Customer", { Id: "C-LOW", CreditLimit: 50 }],
  ] as const) {
    const res = await admin.request("POST", `/api/${entity}`, body);
    if (res.status !== 201) throw new Error(`${entity} not created: ${res.status} ${await res.text()}`);
  }
  return { admin, host: await listen(tenant.app), token: await signIn(tenant.app, admin.tenantId, "admin") };
}
