/**
 * One transaction per request, or one per changeset: a `$batch` changeset runs its parts inside
 * one tenant transaction, and each part's handler finds it here (AsyncLocalStorage follows the
 * part through the app) instead of opening its own. That makes a changeset all or nothing with
 * every part still going through the same routes and pipeline as a standalone request.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Database,
  inTenant,
  PromptCollector,
  type ReferenceCache,
  type Session,
  type TransactionOptions,
} from "@bizdata/core";
import { type WarmScope, WorkflowPrompts } from "@bizdata/workflow";

interface Ambient {
  readonly tenantId: string;
  /** inside a workflow step: a session that reads and stages the workflow's state */
  readonly session: Session;
  /** natural-key lookups shared by the changeset's parts */
  readonly references: ReferenceCache;
  readonly workflowId?: string;
  /** the step's warm scope (WarmWorkflowScopes), when on */
  readonly scope?: WarmScope;
}

const current = new AsyncLocalStorage<Ambient>();

/** runs `fn` in the surrounding changeset's transaction, or in a new tenant transaction */
export function inRequestTransaction<T>(
  db: Database,
  tenantId: string,
  fn: (tx: Session) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  const ambient = current.getStore();
  if (ambient !== undefined && ambient.tenantId === tenantId) return fn(ambient.session);
  return inTenant(db, tenantId, fn, options);
}

/** the natural-key lookups of the surrounding changeset, if any */
export const changesetReferences = (): ReferenceCache | undefined => current.getStore()?.references;

/** the workflow the current request is a step of, if any */
export const currentWorkflow = (): string | undefined => current.getStore()?.workflowId;

/** runs one workflow step with `session` (its transaction, seeing the staged state) as the ambient one */
export function inWorkflowStep<T>(
  tenantId: string,
  session: Session,
  workflowId: string,
  scope: WarmScope | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  return current.run({ tenantId, session, references: new Map(), workflowId, ...(scope && { scope }) }, fn);
}

/** prompts for the current request: kept by its workflow (with its warm scope), else collected */
export function requestPrompts(session: Session, tenantId: string): PromptCollector {
  const ambient = current.getStore();
  return ambient?.workflowId === undefined
    ? new PromptCollector()
    : new WorkflowPrompts(session, tenantId, ambient.workflowId, ambient.scope);
}

/** runs the parts of a changeset in one transaction; throwing rolls all of them back */
export function inChangeset<T>(
  db: Database,
  tenantId: string,
  prefetch: (tx: Session) => Promise<ReferenceCache>,
  fn: () => Promise<T>,
): Promise<T> {
  return inTenant(db, tenantId, async (session) => {
    const references = await prefetch(session);
    return current.run({ tenantId, session, references }, fn);
  });
}
