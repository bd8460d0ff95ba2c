/**
 * User prompts (spec 2.4): the API business logic calls, and the prompts as responses carry them
 * (api-conventions "User prompts"). The same interface serves plain requests (questions take their
 * default answer) and workflows (questions wait for the user). Types only, so a client can import
 * them without loading anything of the server.
 */
export type Severity = "info" | "warning" | "error";

export interface Choice {
  readonly key: string;
  readonly label: string;
}

export interface MessageInput {
  readonly text: string;
  readonly severity?: Severity;
  /** the record the message is about; omitted = `global` */
  readonly entityGuid?: string;
  readonly property?: string;
}

export interface QuestionInput extends MessageInput {
  /** a stable key so a re-run of the same logic finds the same question and its answer */
  readonly key: string;
  readonly choices: readonly Choice[];
  readonly default: string;
}

export interface UserPrompts {
  message(input: MessageInput): void;
  /** Asks a question; resolves to the chosen key (the default on a plain request). */
  ask(input: QuestionInput): Promise<string>;
}

/** a choice of a reported question, with the link that answers it */
export interface PromptChoice extends Choice {
  /** `/api/userprompts/{promptId}/answer/{choiceKey}` (spec 2.4) */
  readonly href: string;
  readonly method: "POST";
}

/** a prompt as a response reports it: a message, or a question when it has choices */
export interface Prompt {
  readonly id: string;
  readonly text: string;
  readonly severity: Severity;
  readonly choices?: readonly PromptChoice[];
  readonly default?: string;
}

/** a question waiting for its answer (inside a workflow) */
export interface PromptQuestion extends Prompt {
  readonly choices: readonly PromptChoice[];
  readonly default: string;
}

/** `@userprompts` / `@workflow.userprompts`: prompts by group (`global`, `{entityGuid}`, `{entityGuid}.{property}`) */
export type PromptEnvelope = Readonly<Record<string, readonly Prompt[]>>;
