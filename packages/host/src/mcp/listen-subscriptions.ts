/**
 * Resource subscriptions of 2026-07-28 (`subscriptions/listen`): a listen request's stream carries
 * `notifications/resources/updated` for the resources its filter names, as a 2025 session's
 * standing stream does for its subscriptions (resource-subscriptions.ts). The SDK's handler
 * serves the stream (the acknowledgement, the subscription id on each notification, the filter),
 * but publishes on one bus to every listener of the endpoint, which knows no caller; so each listen
 * request gets a handler and a bus of its own, fed by a follower of its caller's: its tenant's
 * changes, of the resources its caller may read. A resource the filter names that the caller may
 * not read, or that is none to subscribe to, is acknowledged by the SDK but never notified.
 */
import {
  type AuthInfo,
  createMcpHandler,
  InMemoryServerEventBus,
  ProtocolError,
  type Server,
} from "@modelcontextprotocol/server";
import type { ChangeFeeds } from "../changes/change-feeds.js";
import { onStreamEnd } from "../lifecycle/stream-end.js";
import type { McpCaller } from "./mcp-caller.js";
import { followedBy, type McpSettings } from "./mcp-server.js";
import { ResourceSubscriptions } from "./resource-subscriptions.js";

/** the resources a `subscriptions/listen` request's body names, or undefined when it is no listen request */
export async function listenedResources(request: Request, maxBytes: number): Promise<string[] | undefined> {
  // read only a body of known, bounded length: a chunked one goes to the SDK's handler as it is
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  if (!(length <= maxBytes)) return undefined;
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return undefined;
  }
  const message = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } };
  if (message?.method !== "subscriptions/listen") return undefined;
  const uris = message.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === "string") : [];
}

export interface ListenOptions {
  readonly settings: McpSettings;
  readonly feeds: ChangeFeeds;
  /** the modern server, as the endpoint makes it for every request */
  readonly server: () => Server;
  readonly maxRequestBodySize: number;
  readonly onerror: (err: Error) => void;
  /** registers what ends a stream at the host's shutdown (ChangeStreams.onClose); returns its removal */
  readonly onClose: (end: () => Promise<void>) => () => void;
}

/** serves the listen request `request` of `caller` whose filter names `uris` */
export async function serveListen(
  options: ListenOptions,
  request: Request,
  caller: McpCaller,
  authInfo: AuthInfo,
  uris: readonly string[],
): Promise<Response> {
  const { settings } = options;
  const bus = new InMemoryServerEventBus(options.onerror);
  const subscriptions = new ResourceSubscriptions({
    db: settings.db,
    model: settings.model,
    feeds: options.feeds,
    tenantId: caller.principal.tenantId,
    updated: async (uri) => bus.publish({ kind: "resource_updated", uri }),
    failed: (err) => settings.logger.warn({ err }, "MCP resource subscriptions: the change log was not read"),
  });
  // followed before the stream is acknowledged: a change committed after the acknowledgement is notified
  for (const uri of new Set(uris)) {
    try {
      await subscriptions.subscribe(uri, await followedBy(settings, caller, uri));
    } catch (err) {
      if (!(err instanceof ProtocolError)) {
        subscriptions.close();
        throw err;
      }
    }
  }
  const handler = createMcpHandler(options.server, {
    legacy: "reject",
    maxRequestBodySize: options.maxRequestBodySize,
    bus,
    onerror: options.onerror,
  });
  // the host's shutdown ends the stream, with the SDK's graceful close of a listen
  const removeClose = options.onClose(() => handler.close());
  const response = await handler.fetch(request, { authInfo });
  if (response.body === null || response.headers.get("content-type") !== "text/event-stream") {
    removeClose();
    subscriptions.close();
    return response;
  }
  return new Response(
    onStreamEnd(response.body, () => {
      removeClose();
      subscriptions.close();
    }),
    response,
  );
}
