/**
 * The workflow tools (spec 4.6, 4.7): start one, answer a question, commit, close. A commit that
 * asks waits for the answers (tool-questions.ts) and then commits again; an answer's own questions
 * wait too.
 */
import type { WorkflowStep } from "./model-tools.js";
import type { Args } from "./read-tools.js";
import type { WorkflowHandle } from "./session-workflows.js";
import type { ToolContext } from "./tool-context.js";
import { type Report, reportOrAsk, type ToolOutcome, withMore } from "./tool-questions.js";
import { failure, messages, questions, success } from "./tool-results.js";

export async function workflowTool(ctx: ToolContext, step: WorkflowStep, args: Args): Promise<ToolOutcome> {
  const workflowId = args.workflowId as string | undefined;
  switch (step) {
    case "start": {
      const workflow = await ctx.workflows.start(args.stagingKey as string | undefined);
      return success({ workflowId: workflow.id });
    }
    case "answer": {
      const workflow = await ctx.workflows.get(workflowId, false);
      const [promptId, choice] = [args.promptId as string, args.choice as string];
      const response = await ctx.workflows.answer(workflow, promptId, choice);
      const report = withMore({ workflowId: workflow.id }, messages(response.prompts), [{ promptId, choice }]);
      return reportOrAsk(workflow, report, questions(response.prompts));
    }
    case "close": {
      const workflow = await ctx.workflows.get(workflowId, false);
      await ctx.workflows.close(workflow);
      return success({ workflowId: workflow.id, closed: true });
    }
    case "commit":
      return commit(ctx, await ctx.workflows.get(workflowId, false), {});
  }
}

/**
 * Commits the workflow (spec 4.7), `prior` holding what earlier rounds said and answered: saved,
 * rejected (a tool error with the refusal), or waiting for the answers to its questions.
 */
export async function commit(ctx: ToolContext, workflow: WorkflowHandle, prior: Report): Promise<ToolOutcome> {
  const result = await ctx.workflows.commit(workflow);
  const { prompts: envelope, body } = result.response;
  const { messages: said = [], answered = [] } = prior;
  const report = withMore(
    { workflowId: workflow.id, status: result.status },
    [...said, ...messages(envelope)],
    answered,
  );
  switch (result.status) {
    case "saved":
      return success(report);
    case "rejected": {
      const error = (body as { error?: { code: string; message: string; target?: string; details?: unknown[] } })
        .error ?? { code: "ValidationError", message: "The commit was rejected." };
      return failure(error, { ...report, next: "Fix the staged data, then commit again." });
    }
    case "questionPending":
      return reportOrAsk(workflow, report, questions(envelope), "commit");
  }
}
