/**
 * The workflow tools (spec 4.6, 4.7): start one, answer a question, commit, close. A commit whose
 * questions the person answers (elicitation) is committed again at once; otherwise the questions
 * come back, to be answered with `workflow_answer` and committed again.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { WorkflowStep } from "./model-tools.js";
import type { Args } from "./read-tools.js";
import { settleQuestions, type ToolContext } from "./tool-context.js";
import { failure, type Message, messages, questions, success } from "./tool-results.js";
import { prompts } from "./write-tools.js";

// a commit asks again only while the person keeps answering; this bounds a logic that never stops asking
const MAX_COMMIT_ROUNDS = 8;

export async function workflowTool(ctx: ToolContext, step: WorkflowStep, args: Args): Promise<CallToolResult> {
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
      return success({
        workflowId: workflow.id,
        answered: [{ promptId, choice }],
        ...(await prompts(ctx, workflow, response)),
      });
    }
    case "close": {
      const workflow = await ctx.workflows.get(workflowId, false);
      await ctx.workflows.close(workflow);
      return success({ workflowId: workflow.id, closed: true });
    }
    case "commit":
      return commit(ctx, workflowId);
  }
}

async function commit(ctx: ToolContext, workflowId: string | undefined): Promise<CallToolResult> {
  const workflow = await ctx.workflows.get(workflowId, false);
  const said: Message[] = [];
  const answered: { promptId: string; choice: string }[] = [];
  for (let round = 1; ; round++) {
    const result = await ctx.workflows.commit(workflow);
    const { prompts: envelope, body } = result.response;
    said.push(...messages(envelope));
    const outcome = {
      workflowId: workflow.id,
      status: result.status,
      ...(said.length > 0 && { messages: said }),
      ...(answered.length > 0 && { answered }),
    };
    if (result.status === "saved") return success(outcome);
    if (result.status === "rejected") {
      const error = (body as { error?: { code: string; message: string; target?: string; details?: unknown[] } })
        .error ?? { code: "ValidationError", message: "The commit was rejected." };
      return failure(error, { ...outcome, next: "Fix the staged data, then commit again." });
    }
    const settled = await settleQuestions(ctx, workflow, questions(envelope));
    answered.push(...settled.answered);
    said.push(...settled.messages);
    if (settled.pending.length > 0 || round >= MAX_COMMIT_ROUNDS) {
      return success({
        ...outcome,
        ...(answered.length > 0 && { answered }),
        questions: settled.pending,
        next: "Answer each question with workflow_answer (promptId and the key of a choice), then commit again.",
      });
    }
  }
}
