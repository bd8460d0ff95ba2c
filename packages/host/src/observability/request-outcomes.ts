/**
 * Workflow steps, commits and sign-ins counted from what the host answered, so the routes that
 * answer them need no metrics code: a step advanced when the next index it answers is one past
 * the index it was sent with (spec 7); a commit's outcome is its status (spec 4.7: 200, 422, 400)
 * and, for a 400, the stable error code; a sign-in's is its status.
 */
import type { Context } from "hono";
import type { CommitOutcome, HostMetrics, SignInOutcome, WorkflowStepOutcome } from "./host-metrics.js";

function stepOutcome(c: Context): WorkflowStepOutcome {
  if (c.res.status === 409) return "indexConflict";
  const sent = c.req.header("workflow-index");
  const next = c.res.headers.get("workflow-next-index");
  return sent !== undefined && /^\d+$/.test(sent) && next === String(Number(sent) + 1) ? "advanced" : "failed";
}

/** the error code of a JSON error body, if it is one */
async function errorCode(res: Response): Promise<unknown> {
  try {
    return ((await res.clone().json()) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return undefined;
  }
}

async function commitOutcome(res: Response): Promise<CommitOutcome> {
  if (res.status === 200) return "committed";
  if (res.status === 422) return "questionPending";
  if (res.status !== 400) return "failed";
  switch (await errorCode(res)) {
    case "StagedRecordChanged":
      return "conflict";
    case "ValidationError":
      return "rejected";
    default:
      return "failed";
  }
}

function signInOutcome(status: number): SignInOutcome {
  if (status === 200) return "succeeded";
  if (status === 401) return "failed";
  if (status === 429) return "throttled";
  return status < 500 ? "invalid" : "error";
}

/**
 * counts what the answered request `c` (taken by `route`, under `basePath`) means for workflows
 * and sign-ins
 */
export async function observeOutcomes(
  c: Context,
  route: string,
  metrics: HostMetrics,
  basePath: string,
): Promise<void> {
  if (c.req.header("workflow-id") !== undefined) metrics.workflowStep(stepOutcome(c));
  if (c.req.method !== "POST") return;
  if (route === `${basePath}/workflow/commit`) metrics.commit(await commitOutcome(c.res));
  else if (route === `${basePath}/auth/signin`) metrics.signIn(signInOutcome(c.res.status));
}
