/**
 * The unit of work a request runs in, chosen once by whoever opens it and passed on as a value
 * (never found in ambient state): its tenant, its transaction, whose store says what it reads and
 * writes (the base tables, or a workflow's staged state: `session.store.view`), the lookups its
 * requests share, and where their prompts go and under which annotation they answer. A
 * `$batch` changeset opens one for its parts, a workflow step one for its request; a request
 * given none opens a transaction of its own (`inUnit`).
 */
import type { MethodCall } from "./methods/invoke-method.js";
import { PromptCollector } from "./prompts/prompt-collector.js";
import type { QuestionInput } from "./prompts/prompts.js";
import type { Database, Session } from "./storage/database.js";
import { inTenant, type TenantTransactionOptions } from "./storage/tenant-scope.js";
import type { ReadCache } from "./write/read-cache.js";

/**
 * What a request collects its prompts in. `defer`, when present, lets a method's AskUser
 * question wait for its answer with the call captured (a workflow); without it the question
 * takes its default choice (spec 4.8 rule 4).
 */
export interface RequestPrompts extends PromptCollector {
  defer?(question: QuestionInput, call: MethodCall): Promise<string | undefined>;
}

/** the instance annotation a response carries its prompts in (api-conventions: User prompts) */
export type PromptAnnotation = "@userprompts" | "@workflow.userprompts";

export interface UnitOfWork<P extends RequestPrompts = RequestPrompts> {
  readonly tenantId: string;
  /** the transaction every request of the unit runs in; its store is what they read and write */
  readonly session: Session;
  /** what the requests of the unit read (natural-key lookups, records hooks read), shared by them */
  readonly cache: ReadCache;
  /** the prompts of one request of the unit (a workflow's keep their questions) */
  prompts(): P;
  readonly annotation: PromptAnnotation;
}

/**
 * Runs `fn` in the unit's transaction (whose session says who makes its changes), or without one
 * in a new transaction of the tenant with `options` (their `changes` among them).
 */
export function inUnit<T>(
  db: Database,
  tenantId: string,
  unit: UnitOfWork | undefined,
  fn: (session: Session) => Promise<T>,
  options?: TenantTransactionOptions,
): Promise<T> {
  if (unit !== undefined) {
    if (unit.tenantId !== tenantId) throw new Error(`A unit of work of tenant ${unit.tenantId} serves ${tenantId}.`);
    return fn(unit.session);
  }
  return inTenant(db, tenantId, fn, options);
}

/** the prompts of a request in `unit`, or without one a plain collector (questions take their default) */
export const unitPrompts = (unit: UnitOfWork | undefined): RequestPrompts => unit?.prompts() ?? new PromptCollector();

/** the annotation the prompts of a request in `unit` answer under */
export const promptAnnotation = (unit: UnitOfWork | undefined): PromptAnnotation => unit?.annotation ?? "@userprompts";

/** the workflow whose staged state `session` reads and writes, if any */
export const workflowOf = (session: Session): string | undefined => {
  const id = session.store.view?.workflowId;
  return typeof id === "string" ? id : undefined;
};
