/**
 * The first middleware of the app: it gives the request its id (echoed as `X-Request-Id` on
 * every response, errors and 404s included) and opens its context (request-context.ts): a logger
 * that carries the id, and the client's address through trusted proxies. When the response is
 * done it writes one log line for the request and records it in the metrics. The parts of a
 * `$batch` and the tools of an MCP call are calls of the services made within their request:
 * its line and its statement count cover them, the MCP tools' too, which run while the answer
 * streams (the line waits for the stream's end: RequestContext.continues).
 */
import { type Database, watchStatements } from "@bizdata/core";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { type Principal, writerOf } from "../auth/principal.js";
import type { HostMetrics } from "./host-metrics.js";
import { peerAddress } from "./peer-address.js";
import type { RequestContext, RequestVariables } from "./request-context.js";
import { requestId } from "./request-id.js";
import { observeSignIn } from "./request-outcomes.js";
import { routePattern } from "./route-pattern.js";

export interface RequestObserverOptions {
  readonly db: Database;
  readonly logger: Logger;
  /** off: undefined */
  readonly metrics: HostMetrics | undefined;
  /** the client address from the connection's peer and the request's headers */
  readonly clientAddress: (peer: string | undefined, headers: Headers) => string | undefined;
  /** where the API is mounted (`/api`): route labels are under it */
  readonly basePath: string;
}

export function observeRequests({
  db,
  logger,
  metrics,
  clientAddress,
  basePath,
}: RequestObserverOptions): MiddlewareHandler<{ Variables: RequestVariables }> {
  return async (c, next) => {
    const start = performance.now();
    const id = requestId(c.req.header("x-request-id"));
    // before the handler runs: a header set on a finished response forces a copy of it
    c.header("X-Request-Id", id);
    const client = clientAddress(peerAddress(c), c.req.raw.headers);
    const counter = { statements: 0 };
    // with read replicas, the request's reads follow what its caller wrote (read-replicas.ts): the
    // caller is known once authentication ran, before any of its work
    const requestDb =
      db.routing?.forClient(() => {
        const principal = (c.var as { principal?: Principal }).principal;
        return principal && writerOf(principal);
      }) ?? db;
    // a child logger serializes its bindings when made: made for a request that logs, not for every one
    let child: Logger | undefined;
    const context: RequestContext = {
      id,
      get logger() {
        child ??= logger.child({ reqId: id });
        return child;
      },
      clientAddress: client,
      // every statement, inside a transaction or not, counts toward the request: statements per
      // request show an N+1 pattern or a plan that loads too much long before the latency does
      db: metrics
        ? watchStatements(requestDb, (statements) => {
            counter.statements += statements.length;
          })
        : requestDb,
      counter,
      continues: (done) => {
        continued = done;
      },
    };
    let continued: Promise<unknown> | undefined;
    c.set("request", context);
    await next();
    const observe = () => {
      const ms = performance.now() - start;
      const { method } = c.req;
      const { status } = c.res;
      // the request's own line carries its id as a field, as its child logger's lines do: making
      // that child for every request (its bindings serialized) cost more than writing the line
      if (logger.isLevelEnabled("info"))
        logger.info({ reqId: id, method, path: c.req.path, status, ms: Math.round(ms * 10) / 10, client }, "request");
      if (!metrics) return;
      const route = routePattern(c, basePath);
      metrics.request({ method, route, status, seconds: ms / 1000, statements: counter.statements });
      observeSignIn(c, route, metrics, basePath);
    };
    if (continued === undefined) observe();
    else void continued.then(observe, observe);
  };
}
