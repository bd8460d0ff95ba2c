/**
 * One MCP session's server (the SDK's low-level `Server`: the tools are data, not code per
 * entity): tools and resources for the caller of each request — the tenant's features decide
 * which methods exist, the caller's roles and scopes which tools are listed and may be called —
 * and each tool call run through the services as that request's caller, within that request.
 */
import type { Database, Model } from "@bizdata/core";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { tenantFeaturesOf } from "../api/metadata-routes.js";
import type { Roles } from "../auth/permissions.js";
import type { Principal } from "../auth/principal.js";
import { type ApiCalls, ApiFailure } from "./api-calls.js";
import { modelResources, readResource, resourceTemplates } from "./model-resources.js";
import type { ModelTool } from "./model-tools.js";
import { getTool, queryTool, readMethodTool } from "./read-tools.js";
import type { SessionWorkflows } from "./session-workflows.js";
import { type Catalog, permittedTools, type ToolCatalog } from "./tool-catalog.js";
import type { Ask, ToolContext } from "./tool-context.js";
import { apiFailure, failure, type Question } from "./tool-results.js";
import { workflowTool } from "./workflow-tools.js";
import { stageTool } from "./write-tools.js";

export interface McpSettings {
  readonly db: Database;
  readonly model: Model;
  readonly roles: Roles;
  readonly catalog: ToolCatalog;
  readonly rowLimit: number;
  readonly logger: Logger;
}

/** the caller of one MCP request, as authentication established it (authInfo.extra), and its calls of the services */
export interface McpCaller {
  readonly principal: Principal;
  readonly api: ApiCalls;
}

// a person may take a while to answer; past this the question goes back to the agent instead
const ELICITATION_TIMEOUT_MS = 10 * 60_000;

const INSTRUCTIONS = [
  "Business data over OData: read the resource bizdata://model first (entity sets, natural keys, what can be filtered), then bizdata://model/<EntitySet> for an entity's properties and methods.",
  "Read with query_* and get_*; without select only Guid comes back.",
  "Changes (create_*, update_*, delete_*, and call_* of methods that modify) are staged in a workflow: nothing is saved until workflow_commit.",
  "Business logic may report messages and ask questions; answer a question with workflow_answer, then commit again.",
].join("\n");

const callerOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }): McpCaller => {
  const caller = extra.authInfo?.extra?.caller as McpCaller | undefined;
  // the route authenticates every request before it reaches the session
  if (caller === undefined) throw new McpError(ErrorCode.InternalError, "The request carries no authenticated caller.");
  return caller;
};

export function sessionServer(settings: McpSettings, workflows: SessionWorkflows): Server {
  const server = new Server(
    { name: "bizdata", title: "bizdata business data", version: "0.1.0" },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const catalogOf = async ({ principal }: McpCaller): Promise<Catalog> =>
    settings.catalog.forFeatures(await tenantFeaturesOf(settings.db, principal.tenantId));

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const caller = callerOf(extra);
    return { tools: permittedTools(await catalogOf(caller), settings.roles, caller.principal).map((t) => t.tool) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const caller = callerOf(extra);
    const catalog = await catalogOf(caller);
    const { name } = request.params;
    const tool = catalog.byName.get(name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found.`);
    if (!permittedTools(catalog, settings.roles, caller.principal).includes(tool)) {
      return failure({
        code: "Forbidden",
        message: `${name} is not available to you: your roles and the token's scopes do not allow it.`,
      });
    }
    const args = request.params.arguments ?? {};
    const problems = catalog.problems(tool, args);
    if (problems !== undefined) {
      return failure({ code: "InvalidArguments", message: `${name}: ${problems}.` });
    }
    const ask = server.getClientCapabilities()?.elicitation?.form
      ? elicit(server, extra.requestId, settings.logger)
      : undefined;
    const { api } = caller;
    const ctx: ToolContext = {
      api,
      workflows: workflows.of(api),
      model: settings.model,
      rowLimit: settings.rowLimit,
      ask,
    };
    try {
      return await run(ctx, tool, args);
    } catch (err) {
      if (err instanceof ApiFailure) return apiFailure(err);
      // as the API answers an unexpected error: the details go to the log only
      settings.logger.error({ err, tool: name }, "MCP tool call failed");
      return failure({ code: "InternalError", message: `${name} failed; the host's log has the details.` });
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
    resources: modelResources((await catalogOf(callerOf(extra))).lookup),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const text = readResource(settings.model, (await catalogOf(callerOf(extra))).lookup, uri);
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found.`);
    return { contents: [{ uri, mimeType: "application/json", text }] };
  });
  return server;
}

function run(ctx: ToolContext, tool: ModelTool, args: Record<string, unknown>): Promise<CallToolResult> {
  const { action } = tool;
  switch (action.kind) {
    case "query":
      return queryTool(ctx, action.entitySet, args);
    case "get":
      return getTool(ctx, action.entitySet, args);
    case "create":
    case "update":
    case "delete":
      return stageTool(ctx, { kind: action.kind, entitySet: action.entitySet }, args);
    case "call":
      return action.type === "read" ? readMethodTool(ctx, action, args) : stageTool(ctx, action, args);
    case "workflow":
      return workflowTool(ctx, action.step, args);
  }
}

/**
 * A question put to the person through the client (MCP elicitation, on the tool call's own
 * stream): the choices as a titled single select. Declined, cancelled, timed out or failed: no
 * answer, and the question goes back to the agent.
 */
function elicit(server: Server, requestId: RequestId, logger: Logger): Ask {
  return async (question: Question) => {
    try {
      const result = await server.elicitInput(
        {
          mode: "form",
          message: question.text,
          requestedSchema: {
            type: "object",
            properties: {
              choice: {
                type: "string",
                title: "Answer",
                oneOf: question.choices.map((c) => ({ const: c.key, title: c.label })),
                ...(question.default !== undefined && { default: question.default }),
              },
            },
            required: ["choice"],
          },
        },
        { relatedRequestId: requestId, timeout: ELICITATION_TIMEOUT_MS },
      );
      const choice = result.action === "accept" ? result.content?.choice : undefined;
      return typeof choice === "string" && question.choices.some((c) => c.key === choice) ? choice : undefined;
    } catch (err) {
      logger.warn({ err, promptId: question.promptId }, "asking the person through the MCP client failed");
      return undefined;
    }
  };
}
