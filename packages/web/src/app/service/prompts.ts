/**
 * User prompts as answers carry them (spec 2.4): an envelope keyed by `global`, `{guid}` or
 * `{guid}.{property}`, each a list of prompts; one with choices is a question. The error details
 * of a rejected commit name the same keys (their `target`), so both read into one shape.
 */
export interface Choice {
  readonly key: string;
  readonly label: string;
  readonly href: string;
}

export interface Prompt {
  readonly id: string;
  readonly text: string;
  readonly severity: "info" | "warning" | "error";
  readonly choices?: readonly Choice[];
}

export type Prompts = Readonly<Record<string, readonly Prompt[]>>;

/** the envelope of an answer, plain or inside a workflow; an empty one when there is none */
export function promptsOf(body: unknown): Prompts {
  if (body === null || typeof body !== "object") return {};
  const envelope =
    (body as Record<string, unknown>)["@workflow.userprompts"] ?? (body as Record<string, unknown>)["@userprompts"];
  return envelope !== null && typeof envelope === "object" ? (envelope as Prompts) : {};
}

/** the first question still waiting, with the key it is grouped under */
export function pendingQuestion(prompts: Prompts): Prompt | undefined {
  for (const list of Object.values(prompts)) {
    const question = list.find((p) => p.choices !== undefined && p.choices.length > 0);
    if (question !== undefined) return question;
  }
  return undefined;
}

/** the prompts of one key without its questions (shown as dialogs) */
export const notesAt = (prompts: Prompts, key: string): readonly Prompt[] =>
  (prompts[key] ?? []).filter((p) => p.choices === undefined || p.choices.length === 0);
