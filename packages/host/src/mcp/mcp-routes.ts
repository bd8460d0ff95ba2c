/**
 * The MCP endpoint (Streamable HTTP) at `{basePath}/mcp`, behind the API's own bearer
 * authentication, and its protected-resource metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource{basePath}/mcp`, which every 401 of the endpoint names.
 * Both revisions on one URL: a request of 2026-07-28 (its `_meta` names the revision) is served
 * alone, by a server made for it (the SDK's createMcpHandler: no session, no initialize); a
 * request of a 2025 revision goes to its session (mcp-sessions.ts). A GET of a 2025 session
 * opens its standing stream, on which the notifications of its resource subscriptions come
 * (resource-subscriptions.ts); a GET without a session is answered 405 (questions and log
 * notifications travel on the request's own stream, and 2026-07-28 keeps no session: its
 * `subscriptions/listen` is a POST whose answer streams, served per caller by
 * listen-subscriptions.ts). A page
 * of another origin is refused, and so is a request for a host name this host does not answer to
 * when it listens on a loopback address (DNS rebinding).
 */
import type { BodyLimits, ODataService } from "@bizdata/odata";
import type { WorkflowService } from "@bizdata/workflow";
import { createMcpHandler, isLegacyRequest } from "@modelcontextprotocol/server";
import { type Context, Hono } from "hono";
import { callService } from "../api/entity-routes.js";
import { workflowCallerOf } from "../api/workflow-routes.js";
import type { AuthVariables } from "../auth/authenticate.js";
import { resourceMetadata, WELL_KNOWN } from "../auth/resource-metadata.js";
import type { TrustedIssuer } from "../auth/trusted-issuers.js";
import type { ChangeStreams } from "../changes/change-streams.js";
import { requestLogger, untilStreamEnds } from "../observability/request-context.js";
import { ApiCalls } from "./api-calls.js";
import { type ListenOptions, listenedResources, serveListen } from "./listen-subscriptions.js";
import { authInfoOf, type McpCaller } from "./mcp-caller.js";
import { type McpSettings, mcpServer } from "./mcp-server.js";
import { McpSessions } from "./mcp-sessions.js";
import { requestStates } from "./request-state.js";
import { SessionWorkflows } from "./session-workflows.js";
import { ToolCatalog } from "./tool-catalog.js";

type Env = { Variables: AuthVariables };

export interface McpOptions extends Omit<McpSettings, "catalog" | "requestStates" | "changeFeeds"> {
  /**
   * The host's change streams: a 2025 session's resource subscriptions follow their feeds, and
   * the sessions' standing streams end with them at shutdown. No subscriptions when left out.
   */
  readonly changeStreams?: ChangeStreams;
  /** every read, write and method call of a tool is a call of it */
  readonly service: ODataService;
  /** a tool's workflow steps, commits and answers are calls of it */
  readonly workflows: WorkflowService;
  /**
   * runs one call of a tool in a place of `tenantId`'s (TenantShare), as a request of its own
   * would: the MCP request takes none, its answer streams on while a tool waits for a person's
   * answer, which comes on another MCP request. No share when left out.
   */
  readonly place?: <T>(tenantId: string, work: () => Promise<T>) => Promise<T>;
  readonly bodyLimits: BodyLimits;
  readonly oauthIssuers: readonly Pick<TrustedIssuer, "issuer">[];
  /** the endpoint's resource identifier (RFC 8707) when this host issues tokens for it; else its request URL */
  readonly resource?: string;
  /**
   * The host names requests may name (lower case), when the host listens on a loopback address:
   * a page that rebinds its own name to this machine is refused. Any name when left out.
   */
  readonly allowedHosts?: readonly string[];
}

// an idle session's memory goes back after this long; its workflows stay in the database
const SESSION_IDLE_MS = 30 * 60_000;
const SESSIONS_PER_USER = 16;

/** the MCP endpoint's path under a base path */
export const mcpPath = (basePath: string) => `${basePath}/mcp`;

const rpcError = (c: Context, status: 403 | 405, message: string, headers: Record<string, string> = {}) =>
  c.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, status, headers);

/** routes relative to the host's root */
export function mcpRoutes(options: McpOptions) {
  const { basePath } = options.service;
  const path = mcpPath(basePath);
  const settings: McpSettings = {
    ...options,
    catalog: new ToolCatalog(options.model, {
      rowLimit: options.rowLimit,
      changeTracking: options.db.store.changeLog,
    }),
    requestStates: requestStates(options.db),
    changeFeeds: options.changeStreams?.feeds,
  };
  const maxRequestBodySize = options.bodyLimits.maxBytes;
  const sessions = new McpSessions({
    open: () => {
      const workflows = new SessionWorkflows();
      return { server: mcpServer(settings, "legacy", workflows), workflows };
    },
    idleMs: SESSION_IDLE_MS,
    maxPerUser: SESSIONS_PER_USER,
    maxBodyBytes: maxRequestBodySize,
  });
  options.changeStreams?.onClose(() => sessions.close());
  // 2026-07-28: a server per request, its workflows the request's own (their ids are the handles)
  const modernServer = () => mcpServer(settings, "modern", new SessionWorkflows());
  // a refused request is the client's to see in its answer; the host's log only notes it
  const onerror = (err: Error) => options.logger.debug({ err }, "MCP request refused");
  const perRequest = createMcpHandler(modernServer, { legacy: "reject", maxRequestBodySize, onerror });
  const { changeStreams } = options;
  // a listen request that reached the shared handler (one whose body has no length) ends at shutdown too
  changeStreams?.onClose(() => perRequest.close());
  const listen: ListenOptions | undefined = changeStreams && {
    settings,
    feeds: changeStreams.feeds,
    server: modernServer,
    maxRequestBodySize,
    onerror,
    onClose: (end) => changeStreams.onClose(end),
  };
  const handle = async (c: Context<Env>) => {
    // DNS rebinding (MCP transport security): a browser page of another origin never gets in
    const origin = c.req.header("origin");
    if (origin !== undefined && !sameHost(origin, c.req.url)) {
      return rpcError(c, 403, `Requests from the origin ${origin} are not allowed.`);
    }
    const { hostname } = new URL(c.req.url);
    if (options.allowedHosts !== undefined && !options.allowedHosts.includes(hostname.toLowerCase())) {
      return rpcError(c, 403, `Requests for the host ${hostname} are not allowed.`);
    }
    const principal = c.get("principal");
    const { place } = options;
    const api = new ApiCalls({
      handle: (request, unit) => callService(options.service, options.roles, c, request, unit),
      workflows: options.workflows,
      caller: workflowCallerOf(options.roles, c),
      model: options.model,
      origin: new URL(c.req.url).origin,
      basePath,
      logger: requestLogger(c, options.logger),
      ...(place && { place: (work) => place(principal.tenantId, work) }),
    });
    const caller: McpCaller = { principal, api };
    const token = c.get("accessToken");
    const request = c.req.raw;
    const modern = request.method === "POST" && !(await isLegacyRequest(request, undefined, { maxRequestBodySize }));
    const listened = modern && listen !== undefined ? await listenedResources(request, maxRequestBodySize) : undefined;
    const response =
      listened !== undefined && listen !== undefined
        ? await serveListen(listen, request, caller, authInfoOf(caller, token), listened)
        : modern
          ? await perRequest.fetch(request, { authInfo: authInfoOf(caller, token) })
          : await sessions.handle(request, caller, token);
    // a tool call's work goes on while its answer streams (SSE): the request lasts until it ends
    const streamed = response.body !== null && response.headers.get("content-type") === "text/event-stream";
    // through Hono's context, so the headers every response carries (X-Request-Id, …) are on it too
    return c.newResponse(streamed ? untilStreamEnds(c, response.body) : response.body, response);
  };
  return new Hono<Env>()
    .get(`${WELL_KNOWN}${path}`, (c) =>
      c.json(
        resourceMetadata(
          options.resource ?? `${new URL(c.req.url).origin}${path}`,
          options.oauthIssuers,
          "bizdata MCP",
        ),
      ),
    )
    .post(path, handle)
    .delete(path, handle)
    .get(path, (c) =>
      c.req.header("mcp-session-id") === undefined
        ? rpcError(c, 405, "A GET opens a 2025 session's stream (Mcp-Session-Id): send requests with POST.", {
            Allow: "GET, POST, DELETE",
          })
        : handle(c),
    );
}

function sameHost(origin: string, url: string): boolean {
  try {
    return new URL(origin).host === new URL(url).host;
  } catch {
    return false;
  }
}
