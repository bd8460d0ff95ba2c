/**
 * Every request that names a workflow (`Workflow-Id`) is one step of it (spec 7): it needs
 * `Workflow-Index`, takes the workflow row with `FOR UPDATE`, runs with the workflow's staged
 * state as the state it reads and writes, and advances the index only when it succeeds (2xx, or
 * 422 on commit); anything else rolls its changes back. Every answer carries
 * `Workflow-Next-Index`. A reused, skipped or out-of-order index is `409`.
 */
import { type Database, inTenant, ServiceError } from "@bizdata/core";
import { advanceWorkflow, findWorkflow, type WarmScopes } from "@bizdata/workflow";
import type { MiddlewareHandler } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";
import { inWorkflowStep } from "./request-transaction.js";

class StepFailed extends Error {}

export interface WorkflowSettings {
  /** seconds a workflow lives after its last request */
  readonly ttlSeconds: number;
  /** this host's warm scopes */
  readonly scopes: WarmScopes;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function workflowStep(
  db: Database,
  settings: WorkflowSettings,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const workflowId = c.req.header("workflow-id");
    if (workflowId === undefined) return next();
    const { tenantId, username } = c.get("principal");
    const indexText = c.req.header("workflow-index");
    const notFound = () =>
      new ServiceError(404, "NotFound", "There is no open workflow with this id for you.", "Workflow-Id");
    if (!GUID.test(workflowId)) throw notFound();
    const index = indexText !== undefined && /^\d+$/.test(indexText) ? Number(indexText) : undefined;
    let nextIndex: number | undefined;
    try {
      await inTenant(db, tenantId, async (tx) => {
        const workflow = await findWorkflow(tx, tenantId, username, workflowId, { lock: true });
        if (workflow === undefined) throw notFound();
        nextIndex = workflow.nextIndex;
        if (index === undefined) {
          throw new ServiceError(
            400,
            "WorkflowIndexRequired",
            "A workflow request needs the Workflow-Index header.",
            "Workflow-Index",
          );
        }
        if (index !== workflow.nextIndex) {
          throw new ServiceError(
            409,
            "WorkflowIndexConflict",
            `Workflow-Index ${index} is not the next step; the next is ${workflow.nextIndex}.`,
            "Workflow-Index",
          );
        }
        const scope = settings.scopes.enter(workflowId, workflow.nextIndex);
        await inWorkflowStep(tenantId, { ...tx, view: { workflowId } }, workflowId, scope, () => next());
        const status = c.res.status;
        const commit = c.req.path.endsWith("/workflow/commit");
        if ((status >= 200 && status < 300) || (commit && status === 422)) {
          nextIndex = await advanceWorkflow(tx, tenantId, workflowId, settings.ttlSeconds);
          settings.scopes.advanced(workflowId, nextIndex);
          return;
        }
        // a failed step stores nothing (spec 7: the index does not advance)
        throw new StepFailed();
      });
    } catch (err) {
      if (err instanceof ServiceError && nextIndex !== undefined)
        err.withHeaders({ "Workflow-Next-Index": String(nextIndex) });
      if (!(err instanceof StepFailed)) throw err;
    }
    if (nextIndex !== undefined) c.header("Workflow-Next-Index", String(nextIndex));
  };
}
