/**
 * @bizdata/workflow: staged multi-request workflows (spec 3.1, 4.6, 4.7, 7), the server side:
 * workflow rows and the index protocol's storage (workflow-store), prompts kept by a workflow
 * (workflow-prompts), commit and discard of staged state (commit-workflow), the rights they need
 * (staged-rights), warm scopes. The client has an entry point of its own,
 * `@bizdata/workflow/client`, that loads no server code.
 */
export * from "./server/commit-workflow.js";
export * from "./server/staged-rights.js";
export * from "./server/warm-scopes.js";
export * from "./server/workflow-prompts.js";
export * from "./server/workflow-service.js";
export * from "./server/workflow-store.js";
export * from "./server/workflow-tables.js";
