/**
 * What the host knows about the request being served: its id, a logger that carries it, the
 * client's address, and the database as the request's work sees it (counting its statements when
 * metrics are on). It lives on the Hono context (`c.var.request`), set by the first middleware
 * (observe-requests.ts). A `$batch` part or an MCP tool call is served within the request that
 * carried it: its log lines carry that request's id and its statements count toward it.
 *
 * Passed along explicitly, never through async context storage: on Node 20 that makes every
 * promise of the process pay for async hooks, which cost a read by key about a sixth of its CPU
 * (`pnpm bench:compare`).
 */
import type { Database } from "@bizdata/core";
import type { Context } from "hono";
import type { Logger } from "pino";
import { onStreamEnd } from "../lifecycle/stream-end.js";

export interface RequestContext {
  /** the request id (X-Request-Id) */
  readonly id: string;
  /** the app's logger with `reqId` bound */
  readonly logger: Logger;
  /** the client's address, through trusted proxies (trusted-proxies.ts); undefined in-process */
  readonly clientAddress: string | undefined;
  /**
   * the database for the request's work: its statements are counted in `counter`; with read
   * replicas, its reads follow what its caller wrote (read-replicas.ts)
   */
  readonly db: Database;
  readonly counter: { statements: number };
  /**
   * The request's work goes on after its handler has answered, until `done` settles (an MCP
   * call's tools run while their answer streams): its log line and metrics wait for it.
   */
  continues(done: Promise<unknown>): void;
}

export type RequestVariables = { request: RequestContext };

/** the context of the request `c` serves; undefined before the request middleware ran */
export const requestOf = (c: Context): RequestContext | undefined => c.get("request");

/** the request's logger (its lines carry `reqId`), or `fallback` */
export const requestLogger = (c: Context, fallback: Logger): Logger => requestOf(c)?.logger ?? fallback;

/** the client's address through trusted proxies; undefined in-process */
export const requestClientAddress = (c: Context): string | undefined => requestOf(c)?.clientAddress;

/**
 * The database for the work of the request `c` serves (counting its statements when metrics are
 * on), as the services take it: `{ db }`, or nothing outside the request middleware.
 */
export const requestDatabase = (c: Context): { readonly db?: Database } => {
  const db = requestOf(c)?.db;
  return db === undefined ? {} : { db };
};

/**
 * `body`, the streamed answer of `c`'s request, watched: the request's work lasts until the stream
 * has ended (its last chunk read, an error, or the client gone), and its log line and metrics wait
 * for that (RequestContext.continues). Outside the request middleware, `body` as it is.
 */
export function untilStreamEnds(c: Context, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const request = requestOf(c);
  if (request === undefined) return body;
  let end!: () => void;
  request.continues(new Promise<void>((resolve) => (end = resolve)));
  return onStreamEnd(body, end);
}
