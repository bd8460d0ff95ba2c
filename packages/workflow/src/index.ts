/**
 * @bizdata/workflow: staged multi-request workflows. The server side: workflow rows and the index
 * protocol's storage (workflow-store), commit and discard of staged state (commit-workflow).
 */
export * from "./server/commit-workflow.js";
export * from "./server/workflow-prompts.js";
export * from "./server/workflow-store.js";
