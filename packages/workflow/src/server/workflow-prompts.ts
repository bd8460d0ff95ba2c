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
  type PromptQuestion,
  promptGroup,
  type QuestionInput,
  type Session,
  tableQueries,
} from "@bizdata/core";
import { and, eq } from "drizzle-orm";
import type { WarmScope } from "./warm-scopes.js";
import { workflowPromptTable } from "./workflow-tables.js";

/** the answer link of a choice (spec 2.4), under the service's base path */
export const answerHref = (basePath: string, promptId: string, choice: string) =>
  `${basePath}/userprompts/${promptId}/answer/${encodeURIComponent(choice)}`;

export class WorkflowPrompts extends PromptCollector {
  private readonly pending = new Map<string, PromptQuestion[]>();

  constructor(
    private readonly session: Session,
    private readonly tenantId: string,
    private readonly workflowId: string,
    /** the service root the answer links start with */
    private readonly basePath: string,
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
    const p = workflowPromptTable;
    const db = tableQueries(this.session);
    const [row] = await db
      .select({ id: p.id, answer: p.answer })
      .from(p)
      .where(
        and(
          eq(p.tenantId, this.tenantId),
          eq(p.workflowId, this.workflowId),
          eq(p.key, input.key),
          eq(p.groupKey, group),
        ),
      );
    if (row?.answer) {
      this.scope?.answers.set(`${input.key}\n${group}`, row.answer);
      return row.answer;
    }
    const id = row?.id ?? randomUUID();
    if (row === undefined) {
      await db.insert(p).values({
        tenantId: this.tenantId,
        workflowId: this.workflowId,
        id,
        key: input.key,
        groupKey: group,
        text: input.text,
        severity: input.severity ?? "warning",
        choices: JSON.stringify(input.choices),
        defaultChoice: input.default,
        payload,
      });
    }
    const list = this.pending.get(group) ?? [];
    list.push({
      id,
      text: input.text,
      severity: input.severity ?? "warning",
      choices: input.choices.map((c) => ({
        key: c.key,
        label: c.label,
        href: answerHref(this.basePath, id, c.key),
        method: "POST",
      })),
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
  const p = workflowPromptTable;
  const db = tableQueries(session);
  const question = and(eq(p.tenantId, tenantId), eq(p.workflowId, workflowId), eq(p.id, promptId));
  const [row] = await db
    .select({ choices: p.choices, answer: p.answer, payload: p.payload })
    .from(p)
    .where(question)
    .for("update");
  if (row === undefined) return { outcome: "unknownPrompt" };
  if (row.answer !== null) return { outcome: "alreadyAnswered" };
  if (!(JSON.parse(row.choices) as { key: string }[]).some((c) => c.key === choice))
    return { outcome: "unknownChoice" };
  await db.update(p).set({ answer: choice }).where(question);
  return { outcome: "answered", deferred: row.payload === null ? null : (JSON.parse(row.payload) as DeferredCall) };
}
