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
