/**
 * The request id (api-conventions: Request id): a caller's or proxy's `X-Request-Id` is kept
 * when it is a plain token, so one id follows a request through every service that logs it;
 * anything else (too long, or characters that could forge log fields or headers) is replaced.
 */
import { randomUUID } from "node:crypto";

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** the id to use for a request that arrived with `given` as its X-Request-Id */
export const requestId = (given: string | undefined): string =>
  given !== undefined && SANE.test(given) ? given : randomUUID();
