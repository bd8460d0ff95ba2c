/**
 * Errors are values with a stable code. Stages throw them; the host maps them to HTTP in one
 * place (`status` is the HTTP status the code stands for). A message never carries SQL,
 * parameters or a stack trace.
 */

export interface ErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

export class ServiceError extends Error {
  override readonly name = "ServiceError";
  /** response headers the status calls for (`WWW-Authenticate` on 401, `Retry-After` on 503) */
  headers: Readonly<Record<string, string>> = {};
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target?: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
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

/** A request that is malformed in a way the client can fix (400). */
export const badRequest = (code: string, message: string, target?: string, details?: readonly ErrorDetail[]) =>
  new ServiceError(400, code, message, target, details);

/** A validation failure with one detail per offending property (400 `ValidationError`). */
export const validationError = (details: readonly ErrorDetail[], message = "The request body is not valid.") =>
  new ServiceError(
    400,
    "ValidationError",
    details.length === 1 ? (details[0]?.message ?? message) : message,
    undefined,
    details,
  );

export const notFound = (message: string, target?: string) => new ServiceError(404, "NotFound", message, target);

/**
 * The caller's roles or token scopes do not allow it (403 `Forbidden`); `what` names the action
 * and the entity or method: "updating Product", "calling Journal.Post".
 */
export const forbidden = (what: string) => new ServiceError(403, "Forbidden", `Your role does not allow ${what}.`);
