/**
 * Errors are values with a stable code from the registry (`error-codes.ts`). Stages throw them
 * naming the code; the host maps them to HTTP in one place, with the status the registry gives the
 * code (`status`). A message never carries SQL, parameters or a stack trace.
 */
import { ERROR_CODES, type ErrorCode, statusOf } from "./error-codes.js";

export { ERROR_CODES, type ErrorCode, statusOf };

export interface ErrorDetail {
  /** a detail's own code (`InvalidType`, `Required`, …), or a registry code when the detail is a whole error */
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

export class ServiceError extends Error {
  override readonly name = "ServiceError";
  /** the HTTP status the code stands for (the registry's) */
  readonly status: number;
  /** response headers the status calls for (`WWW-Authenticate` on 401, `Retry-After` on 503) */
  headers: Readonly<Record<string, string>> = {};
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly target?: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
    this.status = statusOf(code);
  }

  /** the same error with response headers attached */
  withHeaders(headers: Record<string, string>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }

  toJSON(): { error: Record<string, unknown> } {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.target !== undefined) error.target = this.target;
    if (this.details.length > 0) error.details = this.details;
    return { error };
  }
}

/** the registry's codes that stand for 400 */
export type BadRequestCode = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]["status"] extends 400 ? C : never;
}[ErrorCode];

/** A request that is malformed in a way the client can fix (a 400 code). */
export const badRequest = (code: BadRequestCode, message: string, target?: string, details?: readonly ErrorDetail[]) =>
  new ServiceError(code, message, target, details);

/**
 * An application's own refusal, under a code of its choosing (`ReservedCode`), from a hook or a
 * method body: a 400 with the error body every refusal has. The registry's codes are the
 * framework's; an application names its own here rather than borrowing one.
 */
export const applicationError = (code: string, message: string, target?: string) =>
  new ServiceError(code as ErrorCode, message, target);

/** A validation failure with one detail per offending property (`ValidationError`). */
export const validationError = (details: readonly ErrorDetail[], message = "The request body is not valid.") =>
  new ServiceError(
    "ValidationError",
    details.length === 1 ? (details[0]?.message ?? message) : message,
    undefined,
    details,
  );

export const notFound = (message: string, target?: string) => new ServiceError("NotFound", message, target);

/**
 * The caller's roles or token scopes do not allow it (`Forbidden`); `what` names the action
 * and the entity or method: "updating Product", "calling Journal.Post".
 */
export const forbidden = (what: string) => new ServiceError("Forbidden", `Your role does not allow ${what}.`);

/**
 * A tenant already holds its share of the host's database work and its queue is full, or its
 * request waited longer than the bound (`TenantBusy`): the other tenants' requests go on.
 */
export const tenantBusy = (message: string, retryAfterSeconds: number) =>
  new ServiceError("TenantBusy", message).withHeaders({ "Retry-After": String(retryAfterSeconds) });

/** A token or a client address over its request rate (`RateLimited`), with the headers that say when to retry. */
export const rateLimited = (message: string, headers: Record<string, string>) =>
  new ServiceError("RateLimited", message).withHeaders(headers);
