/**
 * Errors the client throws. A non-2xx answer becomes a WorkflowError with the fields of the
 * standard error body (api-conventions "Errors": `{"error":{code,message,target,details}}`) and
 * the whole response, so its headers and `@workflow.userprompts` stay readable.
 */
import { isRecord, text } from "./json.js";
import type { WorkflowResponse } from "./transport.js";

export interface WorkflowErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

export class WorkflowError extends Error {
  override readonly name = "WorkflowError";
  readonly status: number;

  constructor(
    readonly response: WorkflowResponse,
    readonly code: string,
    message: string,
    readonly target: string | undefined = undefined,
    readonly details: readonly WorkflowErrorDetail[] = [],
  ) {
    super(message);
    this.status = response.status;
  }

  /**
   * The error a failed response stands for. A body without the standard shape (a proxy's 502,
   * say) gives code `HttpError` and a message naming `action`.
   */
  static fromResponse(response: WorkflowResponse, action: string): WorkflowError {
    const error = isRecord(response.body) && isRecord(response.body.error) ? response.body.error : {};
    const details = Array.isArray(error.details) ? error.details.filter(isRecord).map(detail) : [];
    return new WorkflowError(
      response,
      text(error.code) ?? "HttpError",
      text(error.message) ?? `${action} failed with HTTP ${response.status}.`,
      text(error.target),
      details,
    );
  }
}

function detail(raw: Readonly<Record<string, unknown>>): WorkflowErrorDetail {
  const target = text(raw.target);
  const base = { code: text(raw.code) ?? "", message: text(raw.message) ?? "" };
  return target === undefined ? base : { ...base, target };
}

/** A call on a handle after `dispose()` or `close()`. */
export class WorkflowDisposedError extends Error {
  override readonly name = "WorkflowDisposedError";

  constructor(readonly workflowId: string) {
    super(`The handle of workflow ${workflowId} is disposed.`);
  }
}
