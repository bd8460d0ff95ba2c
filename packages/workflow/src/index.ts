/**
 * @bizdata/workflow: staged multi-request workflows (spec 3.1, 4.6, 4.7, 7). The client
 * (client/): typed handles on workflows over HTTP that send every staged call with the right
 * `Workflow-Index`, resync and retry on 409, answer questions by their links, commit, and close the
 * workflow when the owner disposes its handle. The server side: workflow rows and the index
 * protocol's storage (workflow-store), commit and discard of staged state (commit-workflow).
 */
export * from "./client/index.js";
export * from "./server/commit-workflow.js";
export * from "./server/warm-scopes.js";
export * from "./server/workflow-prompts.js";
export * from "./server/workflow-store.js";
