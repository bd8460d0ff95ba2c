/**
 * The reference host's app listening on a loopback port (@hono/node-server), and MCP clients of
 * the SDK's own (`Client` over `StreamableHTTPClientTransport`) connected to it with a bearer
 * token, as an agent host connects: the MCP tests drive the endpoint through real HTTP.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";

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

/** answers an elicitation (a question put to the person); undefined leaves the capability undeclared */
export type Elicit = (request: { message: string; requestedSchema: unknown }) => ElicitResult | Promise<ElicitResult>;

export interface McpTestClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** calls a tool and returns its result (structured content and all) */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** an SDK client connected to `{url}{basePath}/mcp` with `token` (and `headers` on every request) */
export async function connect(
  url: string,
  token: string,
  options: { elicit?: Elicit; basePath?: string; headers?: Record<string, string> } = {},
): Promise<McpTestClient> {
  const client = new Client(
    { name: "bizdata-test", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      elicit(request.params as { message: string; requestedSchema: unknown }),
    );
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${options.basePath ?? "/api"}/mcp`), {
    requestInit: { headers: { ...options.headers, Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

/** the structured content of a tool result (what the tests read) */
export const content = (result: CallToolResult): any => result.structuredContent;
