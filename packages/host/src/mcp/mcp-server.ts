/**
 * The MCP server of one connection (the SDK's low-level `Server`: the tools are data, not code per
 * entity): a 2025 session's, kept for the session (mcp-sessions.ts), or a 2026-07-28 request's,
 * made for that request alone (mcp-routes.ts). Tools, resources and prompts for the caller of each
 * request — the tenant's features decide which methods exist, the caller's roles and scopes which
 * tools are listed and may be called — and each tool call run through the services as that
 * request's caller, within that request; completion of the resources' and prompts' arguments; log
 * notifications at the level the client asked for; subscriptions to the entity sets' and records'
 * resources, followed through the change log (resource-subscriptions.ts: a 2025 session's here,
 * 2026-07-28's listen streams in listen-subscriptions.ts). Lists come in one page, so any cursor is
 * refused.
 */
import type { Database, Model } from "@bizdata/core";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { tenantFeaturesOf } from "../api/metadata-routes.js";
import { can, type Roles } from "../auth/permissions.js";
import type { ChangeFeeds } from "../changes/change-feeds.js";
import { type ApiCalls, ApiFailure } from "./api-calls.js";
import { callerOf, type McpCaller } from "./mcp-caller.js";
import { complete } from "./mcp-completions.js";
import { methodPrompt, methodPrompts, methodToolOf } from "./method-prompts.js";
import { ENTITY_SET_TEMPLATE, modelResources, readResource, resourceTemplates } from "./model-resources.js";
import type { ModelTool } from "./model-tools.js";
import { getTool, queryTool, readMethodTool } from "./read-tools.js";
import { readRecordResource, recordTemplates } from "./record-resources.js";
import { callDigest, type RequestStates } from "./request-state.js";
import { type Followed, ResourceSubscriptions, subscribable } from "./resource-subscriptions.js";
import { SessionWorkflows } from "./session-workflows.js";
import { type Catalog, permittedTools, type ToolCatalog } from "./tool-catalog.js";
import type { ToolContext } from "./tool-context.js";
import { toolLog } from "./tool-log.js";
import { conclude, type Resumption, resume, type ToolOutcome } from "./tool-questions.js";
import { apiFailure, failure } from "./tool-results.js";
import { commit, workflowTool } from "./workflow-tools.js";
import { stageTool } from "./write-tools.js";

export interface McpSettings {
  readonly db: Database;
  readonly model: Model;
  readonly roles: Roles;
  readonly catalog: ToolCatalog;
  readonly rowLimit: number;
  readonly logger: Logger;
  readonly requestStates: RequestStates;
  /** the tenants' change feeds, which a 2025 session's resource subscriptions follow; none: no subscriptions */
  readonly changeFeeds?: ChangeFeeds | undefined;
}

/** the revisions a server speaks: the 2025 ones (a session), or 2026-07-28 (a request) */
export type Era = "legacy" | "modern";

const INSTRUCTIONS = [
  "Business data over OData: read the resource bizdata://model first (entity sets, natural keys, what can be filtered), then bizdata://model/<EntitySet> for an entity's properties and methods.",
  "Read with query_* and get_*; without select only Guid comes back.",
  "Changes (create_*, update_*, delete_*, and call_* of methods that modify) are staged in a workflow: nothing is saved until workflow_commit. Every change's answer carries its workflowId: pass it on.",
  "Business logic may report messages and ask questions; the person is asked when the client can, else answer a question with workflow_answer, then commit again.",
].join("\n");

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/** lists come in one page: a cursor is none this server gave */
function onePage(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined) {
    throw invalid(
      `The cursor ${JSON.stringify(params.cursor)} is not one of this server's: its lists come in one page.`,
    );
  }
}

/** whether the client can ask the person (elicitation, form mode), as this request or its session declared */
function canAsk(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  const declared =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
  const elicitation = declared?.elicitation;
  // a bare `elicitation: {}` is form mode, as in the revisions before modes (2025-06-18)
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

export function mcpServer(settings: McpSettings, era: Era, workflows: SessionWorkflows): Server {
  const { model, roles } = settings;
  // 2025: resources/subscribe, notified on the session's standing stream; 2026-07-28:
  // subscriptions/listen, which the route serves itself (listen-subscriptions.ts)
  const feeds = settings.changeFeeds;
  const server = new Server(
    { name: "bizdata", title: "bizdata business data", version: "0.1.0" },
    {
      capabilities: {
        tools: {},
        resources: feeds === undefined ? {} : { subscribe: true },
        prompts: {},
        completions: {},
        logging: {},
      },
      instructions: INSTRUCTIONS,
      requestState: { verify: settings.requestStates.verify },
    },
  );
  // a 2025 session's log level (logging/setLevel); a 2026-07-28 request carries its own
  let sessionLevel: LoggingLevel | undefined;
  const levelOf = (ctx: ServerContext): LoggingLevel | undefined =>
    era === "modern"
      ? ((ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)?.[LOG_LEVEL_META_KEY] as
          | LoggingLevel
          | undefined)
      : sessionLevel;

  const catalogOf = async ({ principal }: McpCaller): Promise<Catalog> =>
    settings.catalog.forFeatures(await tenantFeaturesOf(settings.db, principal.tenantId));
  const toolContext = (api: ApiCalls): ToolContext => ({
    api,
    workflows: workflows.of(api),
    model,
    rowLimit: settings.rowLimit,
  });
  /** what the caller of a request may use: its tools, method prompts and readable entity sets */
  const scopeOf = async (ctx: ServerContext) => {
    const caller = callerOf(ctx);
    const catalog = await catalogOf(caller);
    const tools = permittedTools(catalog, roles, caller.principal);
    const readable = catalog.lookup.entitySets
      .map((s) => s.name)
      .filter((s) => can(roles, caller.principal, "read", s));
    return { caller, catalog, tools, methods: new Map(tools.map((t) => [t.tool.name, t])), readable };
  };

  server.setRequestHandler("tools/list", async (request, ctx) => {
    onePage(request.params);
    return { tools: (await scopeOf(ctx)).tools.map((t) => t.tool) };
  });

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const { caller, catalog, tools } = await scopeOf(ctx);
    const { name } = request.params;
    const tool = catalog.byName.get(name);
    if (tool === undefined) throw invalid(`Tool ${name} not found.`);
    if (!tools.includes(tool)) {
      return failure({
        code: "Forbidden",
        message: `${name} is not available to you: your roles and the token's scopes do not allow it.`,
      });
    }
    const args = request.params.arguments ?? {};
    const problems = catalog.problems(tool, args);
    if (problems !== undefined) return failure({ code: "InvalidArguments", message: `${name}: ${problems}.` });
    const call = callDigest(name, args);
    const state = ctx.mcpReq.requestState<Resumption>();
    if (state !== undefined && state.call !== call) throw invalid("The requestState belongs to another tool call.");
    const log = toolLog(ctx, name, levelOf(ctx));
    const tc = toolContext(caller.api.observed(log.call));
    const asker = { canAsk: canAsk(server, ctx), call, mint: (s: Resumption) => settings.requestStates.mint(s, ctx) };
    let result: CallToolResult | InputRequiredResult;
    try {
      const outcome =
        state === undefined
          ? await run(tc, tool, args)
          : await resume(tc, state, ctx.mcpReq.inputResponses ?? {}, (workflow, report) =>
              commit(tc, workflow, report),
            );
      result = await conclude(asker, outcome, state?.round ?? 0);
    } catch (err) {
      if (err instanceof ApiFailure) result = apiFailure(err);
      else {
        // as the API answers an unexpected error: the details go to the log only
        settings.logger.error({ err, tool: name }, "MCP tool call failed");
        result = failure({ code: "InternalError", message: `${name} failed; the host's log has the details.` });
      }
    }
    if (!isInputRequiredResult(result)) await log.result(result);
    return result;
  });

  server.setRequestHandler("resources/list", async (request, ctx) => {
    onePage(request.params);
    return { resources: modelResources((await scopeOf(ctx)).catalog.lookup) };
  });
  server.setRequestHandler("resources/templates/list", async (request) => {
    onePage(request.params);
    return { resourceTemplates: [...resourceTemplates, ...recordTemplates] };
  });
  server.setRequestHandler("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    const { caller, catalog, readable } = await scopeOf(ctx);
    let text = readResource(model, catalog.lookup, uri);
    try {
      text ??= await readRecordResource(toolContext(caller.api), new Set(readable), uri);
    } catch (err) {
      if (err instanceof ApiFailure && err.status < 500) throw invalid(`${uri}: ${err.message}`);
      throw err;
    }
    if (text === undefined) throw invalid(`Resource ${uri} not found.`);
    return { contents: [{ uri, mimeType: "application/json", text }] };
  });

  if (feeds !== undefined && era === "legacy") {
    let subscriptions: ResourceSubscriptions | undefined;
    const closed = server.onclose;
    server.onclose = () => {
      subscriptions?.close();
      closed?.();
    };
    server.setRequestHandler("resources/subscribe", async (request, ctx) => {
      const { uri } = request.params;
      const caller = callerOf(ctx);
      const followed = await followedBy(settings, caller, uri);
      subscriptions ??= new ResourceSubscriptions({
        db: settings.db,
        model,
        feeds,
        tenantId: caller.principal.tenantId,
        updated: (updated) => server.sendResourceUpdated({ uri: updated }),
        failed: (err) => settings.logger.warn({ err }, "MCP resource subscriptions: the change log was not read"),
      });
      await subscriptions.subscribe(uri, followed);
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", async (request) => {
      subscriptions?.unsubscribe(request.params.uri);
      return {};
    });
  }

  server.setRequestHandler("prompts/list", async (request, ctx) => {
    onePage(request.params);
    return { prompts: methodPrompts(model, (await scopeOf(ctx)).tools) };
  });
  server.setRequestHandler("prompts/get", async (request, ctx) => {
    const tool = methodToolOf((await scopeOf(ctx)).methods, request.params.name);
    if (tool === undefined) throw invalid(`There is no prompt ${request.params.name}.`);
    return methodPrompt(model, tool, request.params.arguments ?? {});
  });

  server.setRequestHandler("completion/complete", async (request, ctx) => {
    const { caller, methods, readable } = await scopeOf(ctx);
    return complete({ ctx: toolContext(caller.api), entitySets: readable, methods }, request.params);
  });

  if (era === "legacy") {
    server.setRequestHandler("logging/setLevel", async (request) => {
      sessionLevel = request.params.level;
      return {};
    });
  }
  return server;
}

/**
 * What the resource `uri` follows for `caller`: its entity set (one the caller may read), and for
 * a record's resource the record's Guid, looked up as the caller reads it (by Guid or natural
 * key); a -32602 saying why when it is none to subscribe to
 */
export async function followedBy(settings: McpSettings, caller: McpCaller, uri: string): Promise<Followed> {
  const target = subscribable(uri);
  if (target === undefined)
    throw invalid(
      `${uri} cannot be subscribed to: subscribe to an entity set's resource (${ENTITY_SET_TEMPLATE}), a record's or a records resource.`,
    );
  const catalog = settings.catalog.forFeatures(await tenantFeaturesOf(settings.db, caller.principal.tenantId));
  const sets = catalog.lookup.entitySets.map((set) => set.name);
  if (!sets.includes(target.entitySet)) throw invalid(`Resource ${uri} not found.`);
  const readable = sets.filter((set) => can(settings.roles, caller.principal, "read", set));
  if (!readable.includes(target.entitySet))
    throw invalid(
      `${uri} is not available to you: your roles and the token's scopes do not allow reading ${target.entitySet}.`,
    );
  if (!target.record) return { entity: target.entitySet };
  const ctx: ToolContext = {
    api: caller.api,
    workflows: new SessionWorkflows().of(caller.api),
    model: settings.model,
    rowLimit: settings.rowLimit,
  };
  try {
    const text = await readRecordResource(ctx, new Set(readable), uri);
    if (text === undefined) throw invalid(`Resource ${uri} not found.`);
    return { entity: target.entitySet, key: (JSON.parse(text) as { Guid: string }).Guid };
  } catch (err) {
    if (err instanceof ApiFailure && err.status < 500) throw invalid(`${uri}: ${err.message}`);
    throw err;
  }
}

function run(ctx: ToolContext, tool: ModelTool, args: Record<string, unknown>): Promise<ToolOutcome> {
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
