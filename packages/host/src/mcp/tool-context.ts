/**
 * What a tool call works with: the API (as the MCP request's caller), the session's workflows, the
 * model (natural keys), the row limit, and a way to put a question to the person, when the MCP
 * client can (elicitation).
 */
import type { Model } from "@bizdata/core";
import type { ApiAnswer, ApiCalls } from "./api-calls.js";
import type { WorkflowHandle, Workflows } from "./session-workflows.js";
import { messages, type Question, questions } from "./tool-results.js";

/** asks the person; the key of the chosen answer, or undefined when they gave none */
export type Ask = (question: Question) => Promise<string | undefined>;

export interface ToolContext {
  readonly api: ApiCalls;
  readonly workflows: Workflows;
  readonly model: Model;
  readonly rowLimit: number;
  readonly ask: Ask | undefined;
}

/** a GET on the saved data, or on a workflow's staged state when one is named */
export async function read(ctx: ToolContext, workflowId: string | undefined, path: string): Promise<ApiAnswer> {
  if (workflowId === undefined) return ctx.api.send("GET", path);
  const workflow = await ctx.workflows.get(workflowId, false);
  return ctx.workflows.request(workflow, "GET", path);
}

export interface Settled {
  readonly answered: readonly { readonly promptId: string; readonly choice: string }[];
  /** questions still waiting: the person gave no answer, or the client cannot ask */
  readonly pending: readonly Question[];
  /** what the answers' own responses reported */
  readonly messages: ReturnType<typeof messages>;
}

/** puts each question to the person (when the client can ask) and answers it by its link */
export async function settleQuestions(
  ctx: ToolContext,
  workflow: WorkflowHandle,
  asked: readonly Question[],
): Promise<Settled> {
  const answered: { promptId: string; choice: string }[] = [];
  const pending: Question[] = [];
  const said: ReturnType<typeof messages> = [];
  for (const question of asked) {
    const choice = ctx.ask === undefined ? undefined : await ctx.ask(question);
    if (choice === undefined) {
      pending.push(question);
      continue;
    }
    const response = await ctx.workflows.answer(workflow, question.promptId, choice);
    answered.push({ promptId: question.promptId, choice });
    said.push(...messages(response.prompts));
    pending.push(...questions(response.prompts));
  }
  return { answered, pending, messages: said };
}
