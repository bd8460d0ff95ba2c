/**
 * Log notifications of a tool call (MCP logging; deprecated by 2026-07-28, which keeps it for its
 * deprecation window): a 2025 session sets its level with `logging/setLevel`, a 2026-07-28 request
 * carries its own (`io.modelcontextprotocol/logLevel` in `_meta`), and without a level nothing is
 * sent — the request's answer is all a client gets unless it asked for more. What is sent, on the
 * tool call's own stream: each call of the services the tool made (debug, logger `bizdata.api`),
 * and, from its result, business logic's messages at their severity and a failure (error, logger
 * `bizdata.tool`). Nothing goes there that the caller could not read anyway.
 */
import type { CallToolResult, LoggingLevel, ServerContext } from "@modelcontextprotocol/server";
import type { ObservedCall } from "./api-calls.js";
import type { Message } from "./tool-results.js";

/** the syslog levels in order of severity (RFC 5424, as MCP orders them) */
const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

const rank = (level: LoggingLevel) => LEVELS.indexOf(level);

const SEVERITY: Readonly<Record<string, LoggingLevel>> = { info: "info", warning: "warning", error: "error" };

export interface ToolLog {
  /** a call of the services, when it has answered */
  call(call: ObservedCall): void;
  /** what the tool's result says: its messages, and its failure */
  result(result: CallToolResult): Promise<void>;
}

/** the log of one request, at `threshold` (none: nothing is sent) */
export function toolLog(ctx: ServerContext, tool: string, threshold: LoggingLevel | undefined): ToolLog {
  const send = (level: LoggingLevel, data: unknown, logger: string) =>
    threshold !== undefined && rank(level) >= rank(threshold) ? ctx.mcpReq.log(level, data, logger) : Promise.resolve();
  return {
    call: ({ method, path, status, ms }) => {
      // a notification that cannot be sent (the stream closed) is not the tool's failure
      void send("debug", { tool, call: `${method} ${path}`, status, ms }, "bizdata.api").catch(() => undefined);
    },
    result: async (result) => {
      const content = (result.structuredContent ?? {}) as { messages?: Message[]; error?: unknown };
      for (const message of content.messages ?? []) {
        await send(SEVERITY[message.severity] ?? "info", { tool, ...message }, "bizdata.tool");
      }
      if (result.isError) await send("error", { tool, error: content.error }, "bizdata.tool");
    },
  };
}
