/**
 * What a tool call works with: the API (as the MCP request's caller), the connection's workflows,
 * the model (natural keys) and the row limit.
 */
import type { Model } from "@bizdata/core";
import type { ApiAnswer, ApiCalls } from "./api-calls.js";
import type { Workflows } from "./session-workflows.js";

export interface ToolContext {
  readonly api: ApiCalls;
  readonly workflows: Workflows;
  readonly model: Model;
  readonly rowLimit: number;
}

/** a GET on the saved data, or on a workflow's staged state when one is named */
export async function read(ctx: ToolContext, workflowId: string | undefined, path: string): Promise<ApiAnswer> {
  if (workflowId === undefined) return ctx.api.send("GET", path);
  const workflow = await ctx.workflows.get(workflowId, false);
  return ctx.workflows.request(workflow, "GET", path);
}
