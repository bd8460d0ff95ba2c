/**
 * User prompts on workflow responses (spec 2.4; fields per api-conventions "User prompts"): the
 * `@workflow.userprompts` envelope, keyed by group (`global`, `{entityGuid}`,
 * `{entityGuid}.{propertyName}`), each group an array of prompts. A prompt with choices is a
 * question; one without is a message.
 */
// the one definition of the prompt types, in core; a type-only import loads nothing at run time
import type { Prompt, PromptEnvelope, PromptQuestion } from "@bizdata/core";
import { isRecord, text } from "./json.js";

export type { Prompt, PromptChoice, PromptEnvelope, PromptQuestion, Severity } from "@bizdata/core";

/** a prompt with the group it was reported in */
export type Grouped<P extends Prompt> = P & { readonly group: string };

const ENVELOPE = "@workflow.userprompts";

/** The envelope of a response body; `{}` when the body has none (it is left out when empty). */
export function readPrompts(body: unknown): PromptEnvelope {
  const envelope = isRecord(body) ? body[ENVELOPE] : undefined;
  if (!isRecord(envelope)) return {};
  // fromEntries defines own properties, so a group named `__proto__` stays a plain group
  return Object.fromEntries(
    Object.entries(envelope)
      .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]))
      .map(([group, list]) => [group, list.filter(isPrompt)]),
  );
}

const isPrompt = (value: unknown): value is Prompt =>
  isRecord(value) && text(value.id) !== undefined && text(value.text) !== undefined;

const isQuestion = <P extends Prompt>(prompt: P): prompt is P & PromptQuestion =>
  Array.isArray(prompt.choices) && prompt.choices.length > 0;

function flatten(source: { readonly prompts: PromptEnvelope }): Grouped<Prompt>[] {
  return Object.entries(source.prompts).flatMap(([group, list]) => list.map((prompt) => ({ ...prompt, group })));
}

/** The questions of a response (or of a commit result's response), each with its group. */
export const questions = (source: { readonly prompts: PromptEnvelope }): Grouped<PromptQuestion>[] =>
  flatten(source).filter(isQuestion);

/** The messages (prompts without choices) of a response, each with its group. */
export const messages = (source: { readonly prompts: PromptEnvelope }): Grouped<Prompt>[] =>
  flatten(source).filter((prompt) => !isQuestion(prompt));

/** The answer link of a choice, in the form spec 2.4 fixes, for a service mounted at `basePath`. */
export const answerHref = (basePath: string, promptId: string, choiceKey: string): string =>
  `${basePath}/userprompts/${encodeURIComponent(promptId)}/answer/${encodeURIComponent(choiceKey)}`;
