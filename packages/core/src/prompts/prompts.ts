/**
 * The user-prompt API business logic calls (spec 2.4). The same interface serves plain requests
 * (questions take their default answer) and workflows (questions wait for the user).
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
