/**
 * Collects the prompts business logic raises during one request and shapes them as the envelope
 * (spec 2.4, api-conventions: User prompts): objects keyed by group (`global`, `{entityGuid}`,
 * `{entityGuid}.{property}`), each an array of prompts. On a plain request a question takes its
 * default answer at once and is not reported (plain envelopes carry messages only); a workflow
 * supplies its own `UserPrompts` that keeps questions.
 */
import { randomUUID } from "node:crypto";
import type { MessageInput, Prompt, PromptEnvelope, QuestionInput, UserPrompts } from "./prompts.js";

export const promptGroup = (input: MessageInput): string =>
  input.entityGuid === undefined
    ? "global"
    : input.property === undefined
      ? input.entityGuid
      : `${input.entityGuid}.${input.property}`;

export class PromptCollector implements UserPrompts {
  private readonly groups = new Map<string, Prompt[]>();

  message(input: MessageInput): void {
    const group = promptGroup(input);
    const list = this.groups.get(group) ?? [];
    list.push({ id: randomUUID(), text: input.text, severity: input.severity ?? "info" });
    this.groups.set(group, list);
  }

  async ask(input: QuestionInput): Promise<string> {
    if (!input.choices.some((c) => c.key === input.default)) {
      throw new Error(`Question "${input.key}": its default "${input.default}" is not one of its choices.`);
    }
    return input.default;
  }

  /** the envelope, or undefined when nothing was raised (it is then left out of the response) */
  envelope(): PromptEnvelope | undefined {
    return this.groups.size === 0 ? undefined : Object.fromEntries(this.groups);
  }
}
