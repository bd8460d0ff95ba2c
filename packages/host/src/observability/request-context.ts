/**
 * What the host knows about the request being served, wherever the work for it runs: the
 * statement counter of the database wrapper (statement-counter.ts) and code that logs have no
 * Hono context, so the context travels in an AsyncLocalStorage. A `$batch` part replayed through
 * the app runs inside its batch's context: its log lines carry the batch's request id and its
 * statements count toward the one HTTP request that carried it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";

export interface RequestContext {
  /** the request id (X-Request-Id) */
  readonly id: string;
  /** the app's logger with `reqId` bound */
  readonly logger: Logger;
  /** the client's address, through trusted proxies (trusted-proxies.ts); undefined in-process */
  readonly clientAddress: string | undefined;
  /** statements run for the request so far */
  statements: number;
}

const current = new AsyncLocalStorage<RequestContext>();

/** the context of the request being served, if any */
export const currentRequest = (): RequestContext | undefined => current.getStore();

/** runs `fn` (the rest of the request's handling) with `context` as the current one */
export const inRequest = <T>(context: RequestContext, fn: () => T): T => current.run(context, fn);

/** the current request's logger (its lines carry `reqId`), or `fallback` outside a request */
export const requestLogger = (fallback: Logger): Logger => current.getStore()?.logger ?? fallback;

/** the current request's client address, through trusted proxies; undefined in-process */
export const requestClientAddress = (): string | undefined => current.getStore()?.clientAddress;
