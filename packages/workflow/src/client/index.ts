/**
 * @bizdata/workflow/client: typed handles on workflows over HTTP that send every staged call with
 * the right `Workflow-Index`, resync and retry on 409, answer questions by their links, commit,
 * and close the workflow when the owner disposes its handle. It needs only `fetch`: no server code,
 * no database driver (a browser or an agent can load it).
 *
 * @example
 * const client = new WorkflowClient({ baseUrl: "http://127.0.0.1:3000", token });
 * await using wf = await client.create({ stagingKey: "basket-42" });
 * await wf.post("/api/SalesOrder", { DocNumber: "SO-42" });
 * const result = await wf.commit(); // "saved" | "questionPending" | "rejected"
 */
export { WorkflowDisposedError, WorkflowError, type WorkflowErrorDetail } from "./errors.js";
export {
  type Grouped,
  messages,
  type Prompt,
  type PromptChoice,
  type PromptEnvelope,
  type PromptQuestion,
  questions,
  type Severity,
} from "./prompts.js";
export type { Method, TokenSource, WorkflowResponse } from "./transport.js";
export { type AnswerChoice, type CommitResult, type CommitStatus, Workflow } from "./workflow.js";
export { WorkflowClient, type WorkflowClientOptions } from "./workflow-client.js";
