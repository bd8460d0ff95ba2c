/**
 * The changing tools, staged in a workflow as a person's client stages them (spec 4.6): create,
 * update and delete of a record (by key or natural key, resolved in the workflow's own state, so
 * a record staged earlier is found), and a call of a Modify method. Questions the step raises wait
 * for answers (tool-questions.ts).
 */
import type { StepAnswer } from "./api-calls.js";
import type { ToolAction } from "./model-tools.js";
import { type Args, methodPath, methodResult, queryOptions } from "./read-tools.js";
import { guidOf } from "./record-keys.js";
import type { ToolContext } from "./tool-context.js";
import { reportOrAsk, type ToolOutcome, withMore } from "./tool-questions.js";
import { messages, questions } from "./tool-results.js";

type WriteAction =
  | { readonly kind: "create" | "update" | "delete"; readonly entitySet: string }
  | Extract<ToolAction, { kind: "call" }>;

export async function stageTool(ctx: ToolContext, action: WriteAction, args: Args): Promise<ToolOutcome> {
  const workflow = await ctx.workflows.get(args.workflowId as string | undefined, true);
  const readStaged = (path: string) => ctx.workflows.request(workflow, "GET", path);
  const guid = (entity: string) =>
    guidOf(ctx.model, entity, args.key as string, (e, s) => ctx.api.path(e, s), readStaged);
  const select = queryOptions(args, ["select"]);
  let response: StepAnswer;
  let outcome: Record<string, unknown>;
  switch (action.kind) {
    case "create":
      response = await ctx.workflows.request(workflow, "POST", ctx.api.path(action.entitySet, select), args.record);
      outcome = { record: response.body };
      break;
    case "update": {
      const path = ctx.api.path(`${action.entitySet}(${await guid(action.entitySet)})`, select);
      response = await ctx.workflows.request(workflow, "PATCH", path, args.changes);
      outcome = { record: response.body };
      break;
    }
    case "delete": {
      const path = ctx.api.path(`${action.entitySet}(${await guid(action.entitySet)})`);
      response = await ctx.workflows.request(workflow, "DELETE", path);
      outcome = {};
      break;
    }
    case "call": {
      const path = ctx.api.path(await methodPath(ctx, action, args.key, readStaged));
      response = await ctx.workflows.request(workflow, "POST", path, args.parameters ?? {});
      outcome = methodResult(action, response, undefined);
      break;
    }
  }
  const report = withMore(
    { workflowId: workflow.id, staged: stagedWhat(action), ...outcome },
    messages(response.prompts),
  );
  return reportOrAsk(workflow, report, questions(response.prompts));
}

const stagedWhat = (action: WriteAction): string =>
  action.kind === "call" ? `${action.entity}.${action.method}` : action.kind;
