/**
 * The client's half of the index protocol (spec 4.6 rule 2, spec 7 "Index rules",
 * api-conventions "Workflows"): every staged call carries `Workflow-Id` and `Workflow-Index`;
 * every workflow response announces the next index in `Workflow-Next-Index`.
 */
import { isSuccess, type WorkflowResponse } from "./transport.js";

/** the commit endpoint of a service mounted at `basePath` */
export const commitPath = (basePath: string): string => `${basePath}/workflow/commit`;

/** the headers of a staged call, set over the caller's own */
export function stepHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  workflowId: string,
  index: number,
): Headers {
  const out = new Headers(headers);
  out.set("Workflow-Id", workflowId);
  out.set("Workflow-Index", String(index));
  return out;
}

/** the index the server announced, or undefined when the header is missing or not an index */
export function announcedIndex(headers: Headers): number | undefined {
  const value = headers.get("Workflow-Next-Index");
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The index to send next after `response` to a call sent with `sent`. The server's announcement
 * wins (it also resyncs after a 409). Without one (a proxy's 502, say) spec 7's client rule
 * applies: one more after a step that advanced (2xx, or 422 on commit), the same one otherwise.
 */
export function indexAfter(response: WorkflowResponse, sent: number, commit: boolean): number {
  const announced = announcedIndex(response.headers);
  if (announced !== undefined) return announced;
  return isSuccess(response) || (commit && response.status === 422) ? sent + 1 : sent;
}

/** a 409 the client can resync from: it announces the index the server expects */
export const isResyncable = (response: WorkflowResponse): boolean =>
  response.status === 409 && announcedIndex(response.headers) !== undefined;
