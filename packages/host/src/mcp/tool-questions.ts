/**
 * Business logic's questions (spec 3.2) put to the person as multi-round-trip input requests (MCP
 * 2026-07-28): a tool whose step, answer or commit asks returns `input_required`, one elicitation
 * per question keyed by its promptId (the spec's questions, one to one), with a request state
 * naming the workflow and what the tool had to say so far. The client asks the person and retries
 * the call with the answers; the retry answers each question by its link and goes on where the
 * tool stopped (a commit commits again), without running the tool's step a second time. The same
 * code serves a 2025 session: the SDK turns the input requests into elicitation requests on the
 * tool call's own stream and re-enters the handler with the answers. A client that cannot ask, a
 * person who declines, and a logic that keeps asking leave the questions to the agent
 * (workflow_answer). Everything a round needs is in the request and the database: any host serves
 * the retry.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server";
import type { WorkflowHandle } from "./session-workflows.js";
import type { ToolContext } from "./tool-context.js";
import { type Message, messages, type Question, questions, success } from "./tool-results.js";

// a logic that never stops asking is left to the agent after this many rounds (under the SDK's own caps)
const MAX_ROUNDS = 6;

export interface Answer {
  readonly promptId: string;
  readonly choice: string;
}

/** a tool's answer so far: JSON fields, with the messages said and the questions answered on the way */
export interface Report {
  readonly [field: string]: unknown;
  readonly messages?: readonly Message[];
  readonly answered?: readonly Answer[];
}

/** what comes after the person's answers: the tool's report, or the commit again */
export type Then = "report" | "commit";

/** a tool's outcome that waits for answers */
export interface Asking {
  readonly kind: "asking";
  readonly workflowId: string;
  readonly report: Report;
  readonly questions: readonly Question[];
  readonly then: Then;
}

export type ToolOutcome = CallToolResult | Asking;

const isAsking = (outcome: ToolOutcome): outcome is Asking => (outcome as Partial<Asking>).kind === "asking";

/** what the request state carries from one round to the next (signed; the client may read it: its own data) */
export interface Resumption {
  /** the call it belongs to (callDigest): a state is refused on any other */
  readonly call: string;
  readonly workflowId: string;
  readonly report: Report;
  readonly asked: readonly Question[];
  readonly then: Then;
  readonly round: number;
}

/** how this request can put questions to the person */
export interface Asker {
  /** whether the client declared elicitation (form): it can ask the person */
  readonly canAsk: boolean;
  readonly call: string;
  /** seals a resumption into the request state */
  mint(state: Resumption): Promise<string>;
}

const NEXT: Readonly<Record<Then, string>> = {
  report: "Answer each question with workflow_answer (promptId and the key of a choice).",
  commit: "Answer each question with workflow_answer (promptId and the key of a choice), then commit again.",
};

/**
 * The report with more messages and answers, their fields left out while empty. A message said
 * again (an answer's step and the commit after it both run the logic that says it) is kept once.
 */
export function withMore(report: Report, said: readonly Message[], answered: readonly Answer[] = []): Report {
  const seen = new Set<string>();
  const allSaid = [...(report.messages ?? []), ...said].filter((m) => {
    const key = JSON.stringify([m.group, m.severity, m.text]);
    return !seen.has(key) && seen.add(key);
  });
  const allAnswered = [...(report.answered ?? []), ...answered];
  const { messages: _m, answered: _a, ...rest } = report;
  return {
    ...rest,
    ...(allSaid.length > 0 && { messages: allSaid }),
    ...(allAnswered.length > 0 && { answered: allAnswered }),
  };
}

/** the report, or the questions it waits for */
export function reportOrAsk(
  workflow: WorkflowHandle,
  report: Report,
  asked: readonly Question[],
  then: Then = "report",
): ToolOutcome {
  return asked.length === 0
    ? success(report)
    : { kind: "asking", workflowId: workflow.id, report, questions: asked, then };
}

/** the questions for the agent to answer, with what to do */
const leftToAgent = (report: Report, asked: readonly Question[], then: Then): CallToolResult =>
  success({ ...report, questions: asked, next: NEXT[then] });

/** a tool's outcome as the MCP result: asking the person when the client can, else the agent */
export async function conclude(
  asker: Asker,
  outcome: ToolOutcome,
  round: number,
): Promise<CallToolResult | InputRequiredResult> {
  if (!isAsking(outcome)) return outcome;
  const { report, questions: asked, then, workflowId } = outcome;
  if (!asker.canAsk || round >= MAX_ROUNDS) return leftToAgent(report, asked, then);
  const state: Resumption = { call: asker.call, workflowId, report, asked, then, round: round + 1 };
  return inputRequired({
    inputRequests: Object.fromEntries(asked.map((q) => [q.promptId, elicitation(q)])),
    requestState: await asker.mint(state),
  });
}

/**
 * A question as the person sees it: the choices as a titled single select (the logic's labels),
 * its default preselected.
 */
const elicitation = (question: Question) =>
  inputRequired.elicit({
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
  });

/** the person's choice for a question: accepted, and one of its keys; anything else is no answer */
function chosen(responses: Readonly<Record<string, unknown>>, question: Question): string | undefined {
  const view = inputResponse(responses, question.promptId);
  const choice = view.kind === "elicit" && view.action === "accept" ? view.content?.choice : undefined;
  return typeof choice === "string" && question.choices.some((c) => c.key === choice) ? choice : undefined;
}

/**
 * The retry of a call that asked: each question answered by its link with the person's choice, then
 * the commit again (`then: "commit"`) or the report. A question without an answer (declined,
 * cancelled, not one of its choices) goes back to the agent with any the answers raised.
 */
export async function resume(
  ctx: ToolContext,
  state: Resumption,
  responses: Readonly<Record<string, unknown>>,
  commit: (workflow: WorkflowHandle, report: Report) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const workflow = await ctx.workflows.get(state.workflowId, false);
  const answered: Answer[] = [];
  const said: Message[] = [];
  const raised: Question[] = [];
  const unanswered: Question[] = [];
  for (const question of state.asked) {
    const choice = chosen(responses, question);
    if (choice === undefined) {
      unanswered.push(question);
      continue;
    }
    const response = await ctx.workflows.answer(workflow, question.promptId, choice);
    answered.push({ promptId: question.promptId, choice });
    said.push(...messages(response.prompts));
    raised.push(...questions(response.prompts));
  }
  const report = withMore(state.report, said, answered);
  if (unanswered.length > 0) return leftToAgent(report, [...unanswered, ...raised], state.then);
  if (state.then === "commit") return commit(workflow, report);
  return reportOrAsk(workflow, report, raised);
}
