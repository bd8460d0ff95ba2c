/**
 * The scope a request runs in: a `$batch` changeset runs its parts inside one tenant transaction,
 * and a workflow step runs with a session that sees the workflow's staged state. Each part or
 * step still goes through the same pipeline as a standalone request, and finds its transaction,
 * its natural-key lookups and where its prompts go here instead of opening its own. The scope
 * knows nothing of workflows: the one who opens it says which prompts collect and under which
 * annotation they answer.
 *
 * A changeset hands its scope to each part explicitly (ODataRequest `scope`); a workflow step,
 * which runs through the host's routes and middleware, and a batch part replayed through them,
 * find it in an AsyncLocalStorage (`runInScope`). The price of that storage on Node 20: once a
 * scope has run in it, async hooks stay on for the process and every promise pays for them
 * (Node 24's AsyncContextFrame removes that cost), which is why plain requests and changesets
 * carry their context explicitly. The storage is never disabled between scopes: resources made
 * inside one keep its store, and a later scope would enable them again as if they were inside it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Database,
  inTenant,
  type MethodCall,
  PromptCollector,
  type QuestionInput,
  type ReadCache,
  type Session,
  type TransactionOptions,
  type WriteBehind,
} from "@bizdata/core";

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

export interface RequestScope {
  readonly tenantId: string;
  /** the transaction every request in the scope runs in */
  readonly session: Session;
  /** what the requests of the scope read (natural-key lookups, records hooks read), shared by them */
  readonly cache: ReadCache;
  /** the prompts of one request in the scope; a workflow step keeps its questions */
  readonly prompts: (session: Session, tenantId: string) => RequestPrompts;
  readonly annotation: PromptAnnotation;
  /** inside a workflow step: the workflow whose staged state reads see */
  readonly workflowId?: string;
}

const current = new AsyncLocalStorage<RequestScope>();

/** the scope the current request runs in, if any */
export const currentScope = (): RequestScope | undefined => current.getStore();

/** runs `fn` with `scope` as the scope of every request it makes */
export const runInScope = <T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> => current.run(scope, fn);

/** runs `fn` in the surrounding scope's transaction, or in a new tenant transaction */
export function inRequestTransaction<T>(
  db: Database,
  tenantId: string,
  fn: (tx: Session) => Promise<T>,
  options?: TransactionOptions,
  scope: RequestScope | undefined = current.getStore(),
): Promise<T> {
  if (scope !== undefined && scope.tenantId === tenantId) return fn(scope.session);
  return inTenant(db, tenantId, fn, options);
}

/** prompts for the current request: the scope's, else a plain collector (questions take their default) */
export const requestPrompts = (
  session: Session,
  tenantId: string,
  scope: RequestScope | undefined = current.getStore(),
): RequestPrompts => scope?.prompts(session, tenantId) ?? new PromptCollector();

/** the annotation the current request's prompts go into */
export const promptAnnotation = (scope: RequestScope | undefined = current.getStore()): PromptAnnotation =>
  scope?.annotation ?? "@userprompts";

/**
 * Runs the parts of a changeset in one tenant transaction, with the lookups `prefetch` made in it
 * shared by every part; a throw rolls all of them back. `fn` gets the changeset's scope to hand
 * each part: explicitly to a service request (ODataRequest `scope`), or through `runInScope` to
 * a part replayed through the host's routes; explicitly, the parts' promises pay no async hooks.
 * The parts' inserts wait and go together (one statement per table for the changeset). When one of them fails as it goes, its error lands
 * on whichever statement sent it, not on the part that made it: the changeset then runs once more
 * with every insert at once, so the part that fails is the one to blame, as without waiting.
 */
export async function inChangeset<T>(
  db: Database,
  tenantId: string,
  prefetch: (tx: Session) => Promise<ReadCache>,
  fn: (scope: RequestScope) => Promise<T>,
): Promise<T> {
  const run = (deferInserts: boolean, seen: { writes?: WriteBehind }) =>
    inTenant(
      db,
      tenantId,
      async (session, writes) => {
        seen.writes = writes;
        const cache = await prefetch(session);
        const prompts = () => new PromptCollector();
        return fn({ tenantId, session, cache, prompts, annotation: "@userprompts" });
      },
      { deferInserts },
    );
  const first: { writes?: WriteBehind } = {};
  try {
    return await run(true, first);
  } catch (err) {
    if (!first.writes?.failed) throw err;
    return run(false, {});
  }
}
