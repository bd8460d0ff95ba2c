/**
 * The first middleware of the app: it gives the request its id (echoed as `X-Request-Id` on
 * every response, errors and 404s included) and opens its context (request-context.ts): a logger
 * that carries the id, and the client's address through trusted proxies. When the response is
 * done it writes one log line for the request and records it in the metrics. A `$batch` part
 * replayed through the app is not an HTTP request of its own: it runs in its batch's context,
 * and only its workflow and sign-in outcomes are counted.
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { HostMetrics } from "./host-metrics.js";
import { peerAddress } from "./peer-address.js";
import { currentRequest, inRequest, type RequestContext } from "./request-context.js";
import { requestId } from "./request-id.js";
import { observeOutcomes } from "./request-outcomes.js";
import { routePattern } from "./route-pattern.js";

export interface RequestObserverOptions {
  readonly logger: Logger;
  /** off: undefined */
  readonly metrics: HostMetrics | undefined;
  /** the client address from the connection's peer and the request's headers */
  readonly clientAddress: (peer: string | undefined, headers: Headers) => string | undefined;
}

export function observeRequests({ logger, metrics, clientAddress }: RequestObserverOptions): MiddlewareHandler {
  return async (c, next) => {
    if (currentRequest() !== undefined) {
      await next();
      if (metrics) await observeOutcomes(c, routePattern(c), metrics);
      return;
    }
    const start = performance.now();
    const id = requestId(c.req.header("x-request-id"));
    // before the handler runs: a header set on a finished response forces a copy of it
    c.header("X-Request-Id", id);
    const client = clientAddress(peerAddress(c), c.req.raw.headers);
    const context: RequestContext = { id, logger: logger.child({ reqId: id }), clientAddress: client, statements: 0 };
    await inRequest(context, next);
    const ms = performance.now() - start;
    const { method } = c.req;
    const { status } = c.res;
    context.logger.info({ method, path: c.req.path, status, ms: Math.round(ms * 10) / 10, client }, "request");
    if (!metrics) return;
    const route = routePattern(c);
    metrics.request({ method, route, status, seconds: ms / 1000, statements: context.statements });
    await observeOutcomes(c, route, metrics);
  };
}
