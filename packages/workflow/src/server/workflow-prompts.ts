/**
 * Prompts inside a workflow (spec 2.4, 3.2): messages are reported, questions are kept. A
 * question asked again by the same logic (same key and group) finds its stored answer; until it
 * has one it is pending, the logic continues with the default, and commit is refused (422).
 */
import { randomUUID } from "node:crypto";
import {
  type MethodCall,
  type Prompt,
  PromptCollector,
  promptGroup,
  type QuestionInput,
  type Session,
} from "@bizdata/core";
import type { WarmScope } from "./warm-scopes.js";

export interface Question extends Prompt {
  readonly choices: readonly { key: string; label: string; href: string; method: "POST" }[];
  readonly default: string;
}

export const answerHref = (promptId: string, choice: string) =>
  `/api/userprompts/${promptId}/answer/${encodeURIComponent(choice)}`;

export class WorkflowPrompts extends PromptCollector {
  private readonly pending = new Map<string, Question[]>();

  constructor(
    private readonly session: Session,
    private readonly tenantId: string,
    private readonly workflowId: string,
    /** the warm scope of this step, when scopes are on */
    private readonly scope?: WarmScope,
  ) {
    super();
  }

  override async ask(input: QuestionInput): Promise<string> {
    await super.ask(input);
    return (await this.keep(input, null)) ?? input.default;
  }

  /**
   * A method's AskUser question: its answer when it has one; otherwise the question is stored
   * with the captured call and the method waits (undefined).
   */
  async defer(input: QuestionInput, call: MethodCall): Promise<string | undefined> {
    const { entity, ...rest } = call;
    return this.keep(input, JSON.stringify({ ...rest, entity: entity.name }));
  }

  /** the stored answer, or undefined after recording the question as pending */
  private async keep(input: QuestionInput, payload: string | null): Promise<string | undefined> {
    const group = promptGroup(input);
    const known = this.scope?.answers.get(`${input.key}\n${group}`);
    if (known !== undefined) return known;
    const [row] = await this.session.query<{ id: string; answer: string | null }>({
      sql: `SELECT id::text AS id, answer FROM bizdata_workflow_prompt
            WHERE tenant_id = $1 AND workflow_id = $2::uuid AND key = $3 AND group_key = $4`,
      params: [this.tenantId, this.workflowId, input.key, group],
    });
    if (row?.answer) {
      this.scope?.answers.set(`${input.key}\n${group}`, row.answer);
      return row.answer;
    }
    const id = row?.id ?? randomUUID();
    if (row === undefined) {
      await this.session.query({
        sql: `INSERT INTO bizdata_workflow_prompt
                (tenant_id, workflow_id, id, key, group_key, text, severity, choices, default_choice, payload)
              VALUES ($1, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9, $10)`,
        params: [
          this.tenantId,
          this.workflowId,
          id,
          input.key,
          group,
          input.text,
          input.severity ?? "warning",
          JSON.stringify(input.choices),
          input.default,
          payload,
        ],
      });
    }
    const list = this.pending.get(group) ?? [];
    list.push({
      id,
      text: input.text,
      severity: input.severity ?? "warning",
      choices: input.choices.map((c) => ({ key: c.key, label: c.label, href: answerHref(id, c.key), method: "POST" })),
      default: input.default,
    });
    this.pending.set(group, list);
    return undefined;
  }

  /** questions this request left unanswered */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  override envelope() {
    const messages = super.envelope() ?? {};
    if (this.pending.size === 0) return super.envelope();
    const out: Record<string, readonly Prompt[]> = { ...messages };
    for (const [group, questions] of this.pending) out[group] = [...(out[group] ?? []), ...questions];
    return out;
  }
}

/** a method call captured with its AskUser question: the entity by name, the rest as called */
export type DeferredCall = Omit<MethodCall, "entity"> & { readonly entity: string };

/** records the answer to a pending question of this workflow */
export async function answerQuestion(
  session: Session,
  tenantId: string,
  workflowId: string,
  promptId: string,
  choice: string,
): Promise<
  | { readonly outcome: "answered"; readonly deferred: DeferredCall | null }
  | { readonly outcome: "unknownPrompt" | "unknownChoice" | "alreadyAnswered" }
> {
  const [row] = await session.query<{ choices: string; answer: string | null; payload: string | null }>({
    sql: `SELECT choices, answer, payload FROM bizdata_workflow_prompt WHERE tenant_id = $1 AND workflow_id = $2::uuid AND id = $3::uuid FOR UPDATE`,
    params: [tenantId, workflowId, promptId],
  });
  if (row === undefined) return { outcome: "unknownPrompt" };
  if (row.answer !== null) return { outcome: "alreadyAnswered" };
  if (!(JSON.parse(row.choices) as { key: string }[]).some((c) => c.key === choice))
    return { outcome: "unknownChoice" };
  await session.query({
    sql: "UPDATE bizdata_workflow_prompt SET answer = $4 WHERE tenant_id = $1 AND workflow_id = $2::uuid AND id = $3::uuid",
    params: [tenantId, workflowId, promptId, choice],
  });
  return { outcome: "answered", deferred: row.payload === null ? null : (JSON.parse(row.payload) as DeferredCall) };
}
