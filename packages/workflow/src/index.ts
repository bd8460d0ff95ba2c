/**
 * @bizdata/workflow: staged multi-request workflows (spec 3.1, 4.6, 4.7, 7), the server side — what
 * a host needs to run them: the service (create, resume, find by staging key, close, a step with
 * the unit of work its request runs in, commit, the answer link), this host's warm scopes, the rights a caller brings, and the tables to migrate.
 * How a workflow stores, stages, commits and discards stays inside the package. The client has an
 * entry point of its own, `@bizdata/workflow/client`, that loads no server code.
 *
 * @example
 * const workflows = createWorkflowService({ db, model, planner, basePath: "/api", ttlSeconds: 900, scopes: new WarmScopes() });
 * const result = await workflows.create({ tenantId, owner, may: (access) => rightsOf(user, access) }, null);
 */
export type { Rights } from "./server/staged-rights.js";
export { type WarmScope, type WarmScopeOptions, WarmScopes } from "./server/warm-scopes.js";
export {
  type CommitResult,
  createWorkflowService,
  type StepHeaders,
  type StepOutcome,
  type WorkflowCaller,
  type WorkflowObserver,
  type WorkflowService,
  type WorkflowServiceOptions,
  type WorkflowUnit,
} from "./server/workflow-service.js";
export { workflowTables } from "./server/workflow-tables.js";
