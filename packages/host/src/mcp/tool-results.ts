/**
 * What a tool answers: small JSON as `structuredContent`, the same JSON as text for clients that
 * read only text (the MCP spec asks for both), and failures as tool errors (`isError`) carrying
 * the API's error code and message, so an agent can correct its call. Prompts come as plain
 * lists: messages, and questions with their choices to answer by `workflow_answer`.
 */
import { messages as messagesOf, type PromptEnvelope, questions as questionsOf } from "@bizdata/workflow/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApiFailure } from "./api-calls.js";

export interface Message {
  readonly text: string;
  readonly severity: string;
  /** `global`, `{entityGuid}` or `{entityGuid}.{property}` (spec 2.4) */
  readonly group: string;
}

export interface Question {
  readonly promptId: string;
  readonly text: string;
  readonly group: string;
  readonly choices: readonly { readonly key: string; readonly label: string }[];
  readonly default?: string;
}

export function messages(prompts: PromptEnvelope): Message[] {
  return messagesOf({ prompts }).map(({ text, severity, group }) => ({ text, severity, group }));
}

export function questions(prompts: PromptEnvelope): Question[] {
  return questionsOf({ prompts }).map((q) => ({
    promptId: q.id,
    text: q.text,
    group: q.group,
    choices: q.choices.map(({ key, label }) => ({ key, label })),
    ...(q.default !== undefined && { default: q.default }),
  }));
}

export function success(content: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(content) }], structuredContent: content };
}

/** a refusal or failure the agent can act on */
export function failure(
  error: {
    readonly code: string;
    readonly message: string;
    readonly target?: string | undefined;
    readonly details?: readonly unknown[];
  },
  more: Record<string, unknown> = {},
): CallToolResult {
  const content = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.target !== undefined && { target: error.target }),
      ...(error.details !== undefined && error.details.length > 0 && { details: error.details }),
    },
    ...more,
  };
  return { content: [{ type: "text", text: JSON.stringify(content) }], structuredContent: content, isError: true };
}

/** an API failure as a tool error, with its HTTP status and any prompts it carried */
export function apiFailure(err: ApiFailure, more: Record<string, unknown> = {}): CallToolResult {
  const said = messages(err.prompts);
  const asked = questions(err.prompts);
  return failure(err, {
    status: err.status,
    ...(said.length > 0 && { messages: said }),
    ...(asked.length > 0 && { questions: asked }),
    ...more,
  });
}
