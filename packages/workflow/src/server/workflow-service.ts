/**
 * The workflow runtime (spec 3.1, 4.6, 4.7, 7; api-conventions: Workflows) on plain data, for
 * any host: create, resume, find by staging key and close; the index protocol around every step
 * (`step`, which hands the request its unit of work: the step's transaction seeing the staged
 * state, and prompts that keep questions), and the two requests that only exist as steps —
 * commit and the answer link. Results are `ODataResult`s, so a host only routes, authenticates
 * and turns them into its responses.
 */
import {
  type ChangeAuthor,
  type CommitRejection,
  changeSource,
  type Database,
  forbidden,
  inTenant,
  invokeMethod,
  isGuid,
  type Model,
  ReadCache,
  ServiceError,
  stagedSession,
  statusOf,
  type UnitOfWork,
  type WriteLimits,
} from "@bizdata/core";
import {
  errorResponse,
  jsonResult,
  methodEnvironment,
  noContent,
  type ODataResult,
  type ReadPlanner,
  resolveEntity,
  tenantInfo,
} from "@bizdata/odata";
import { type CommitOutcome, commitWorkflow, discardStaged, stagedEntities, sweepExpired } from "./commit-workflow.js";
import { type Rights, requireStagedRights } from "./staged-rights.js";
import type { WarmScopes } from "./warm-scopes.js";
import { answerQuestion, WorkflowPrompts } from "./workflow-prompts.js";
import { advanceWorkflow, closeWorkflow, createWorkflow, findActiveWorkflow, findWorkflow } from "./workflow-store.js";

export interface WorkflowServiceOptions {
  readonly db: Database;
  readonly model: Model;
  /** reads of method calls deferred behind a question, run when it is answered */
  readonly planner: ReadPlanner;
  /** the service root every URL starts with (answer links), e.g. `/api` */
  readonly basePath: string;
  /** seconds a workflow lives after its last request */
  readonly ttlSeconds: number;
  /** this host's warm scopes (WarmWorkflowScopes) */
  readonly scopes: WarmScopes;
  /** bounds on what one write may hold, as the OData service has them; core's defaults when left out */
  readonly writeLimits?: WriteLimits;
  /** told how each step and each commit ended (a host's metrics) */
  readonly observe?: WorkflowObserver;
}

/** how a step ended: it advanced the index, its index was not the next (409), or it failed */
export type StepOutcome = "advanced" | "indexConflict" | "failed";

/** how a commit ended (spec 4.7), or `failed` when it answered none of those (403, a wrong index) */
export type CommitResult = CommitOutcome["kind"] | "failed";

export interface WorkflowObserver {
  step(outcome: StepOutcome): void;
  commit(outcome: CommitResult): void;
}

/**
 * The unit of work of one step: its transaction, whose store is the workflow's staged state, and
 * prompts that keep their questions in the workflow and answer as `@workflow.userprompts`
 */
export interface WorkflowUnit extends UnitOfWork<WorkflowPrompts> {
  readonly workflowId: string;
}

/** who calls: a workflow belongs to its owner in its tenant (spec 5.5) */
export interface WorkflowCaller {
  readonly tenantId: string;
  readonly owner: string;
  /**
   * Whether the caller may make `access` now — its token's scopes and its roles as stored, not
   * as they were when the workflow staged its changes: commit, close and the answer link ask it
   * (staged-rights.ts); the requests a step runs ask the service's own `authorize`.
   */
  readonly may: Rights;
  /**
   * The database this request's work runs on, when not the service's: a host's wrapper around
   * it, e.g. one that counts the request's statements.
   */
  readonly db?: Database;
  /** who makes the changes the step commits, for their change log rows; the owner when left out */
  readonly author?: ChangeAuthor;
}

/** the headers that make a request a workflow step */
export interface StepHeaders {
  readonly workflowId: string;
  /** `Workflow-Index` as sent; undefined when missing */
  readonly index: string | undefined;
}

class StepFailed extends Error {}

/** what a step that succeeded answers: 2xx (a commit's 422 too, commit says so itself) */
const succeeded = (status: number) => status >= 200 && status < 300;

/** a step's result with the index to send next */
const withNextIndex = (result: ODataResult, nextIndex: number): ODataResult => ({
  ...result,
  headers: { ...result.headers, [NEXT_INDEX]: String(nextIndex) },
});

const NEXT_INDEX = "Workflow-Next-Index";

const stepRequired = () =>
  new ServiceError("WorkflowIndexRequired", "Send Workflow-Id and Workflow-Index with this request.", "Workflow-Id");

const notFound = (target?: string) =>
  new ServiceError("NotFound", "There is no open workflow with this id for you.", target);

/** a JSON answer that carries the step's prompts as `@workflow.userprompts` (left out when none) */
const withEnvelope = (prompts: WorkflowPrompts, body: Record<string, unknown>) => {
  const envelope = prompts.envelope();
  return envelope === undefined ? body : { "@workflow.userprompts": envelope, ...body };
};

/** a rejection's detail target: `{entityGuid}.{property}`, either alone, or none */
const rejectionTarget = ({ entityGuid, property }: CommitRejection): { target?: string } => {
  const target = [entityGuid, property].filter((part) => part !== undefined && part !== "").join(".");
  return target === "" ? {} : { target };
};

/** what a commit outcome answers (spec 4.7): details always in `@workflow.userprompts` */
function commitResult(outcome: CommitOutcome, prompts: WorkflowPrompts): ODataResult {
  const answer = (status: number, body: Record<string, unknown>) =>
    jsonResult(status, JSON.stringify(withEnvelope(prompts, body)));
  switch (outcome.kind) {
    case "committed": {
      const n = outcome.changed;
      return answer(200, { message: `Committed ${n} change${n === 1 ? "" : "s"}.` });
    }
    case "questionPending":
      return answer(422, { message: "A question must be answered before the workflow can commit." });
    case "conflict":
      return answer(statusOf("StagedRecordChanged"), {
        error: {
          code: "StagedRecordChanged",
          message: "Records this workflow changed were changed in the main data since; re-read and stage again.",
          details: outcome.conflicts.flatMap((x) =>
            (x.properties.length === 0 ? [undefined] : x.properties).map((p) => ({
              code: x.deleted ? "RecordDeleted" : "PropertyChanged",
              message: `${x.entity}(${x.guid})${p ? `.${p}` : ""} changed in the main data.`,
              target: p ? `${x.guid}.${p}` : x.guid,
            })),
          ),
        },
      });
    case "rejected":
      return answer(statusOf("ValidationError"), {
        error: {
          code: "ValidationError",
          message: "The staged records cannot be saved.",
          details: outcome.rejections.map((r) => ({
            code: r.code ?? "SaveRejected",
            message: r.message,
            ...rejectionTarget(r),
          })),
        },
      });
  }
}

export function createWorkflowService(options: WorkflowServiceOptions) {
  const { db, model, planner, basePath, ttlSeconds, scopes, writeLimits, observe } = options;

  /**
   * The index protocol (spec 7) around one request: takes the workflow row `FOR UPDATE`, checks
   * `Workflow-Index` (400 missing, 409 not the next), runs `run` in the step's unit of work, and
   * advances the index only when `kept` says its result succeeded; anything else rolls its
   * changes back. Errors carry `Workflow-Next-Index`.
   */
  const runStep = async <R extends { readonly status: number }>(
    caller: WorkflowCaller,
    headers: StepHeaders,
    run: (unit: WorkflowUnit) => Promise<R>,
    kept: (status: number) => boolean,
  ): Promise<{ readonly result: R; readonly nextIndex: number }> => {
    const { tenantId, owner } = caller;
    const { workflowId } = headers;
    const index = headers.index !== undefined && /^\d+$/.test(headers.index) ? Number(headers.index) : undefined;
    let nextIndex: number | undefined;
    let result: R | undefined;
    let outcome: StepOutcome = "failed";
    // what a commit writes is logged as the caller's (what a step stages is never logged)
    const changes = changeSource(model, { actor: owner, ...caller.author });
    try {
      if (!isGuid(workflowId)) throw notFound("Workflow-Id");
      await inTenant(
        caller.db ?? db,
        tenantId,
        async (tx) => {
          const workflow = await findWorkflow(tx, tenantId, owner, workflowId, { lock: true });
          if (workflow === undefined) throw notFound("Workflow-Id");
          nextIndex = workflow.nextIndex;
          if (index === undefined) {
            throw new ServiceError(
              "WorkflowIndexRequired",
              "A workflow request needs the Workflow-Index header.",
              "Workflow-Index",
            );
          }
          if (index !== workflow.nextIndex) {
            outcome = "indexConflict";
            throw new ServiceError(
              "WorkflowIndexConflict",
              `Workflow-Index ${index} is not the next step; the next is ${workflow.nextIndex}.`,
              "Workflow-Index",
            );
          }
          const scope = scopes.enter(workflowId, workflow.nextIndex);
          const session = stagedSession(tx, workflowId);
          result = await run({
            tenantId,
            session,
            workflowId,
            cache: new ReadCache(),
            annotation: "@workflow.userprompts",
            prompts: () => new WorkflowPrompts(session, tenantId, workflowId, basePath, scope),
          });
          if (kept(result.status)) {
            nextIndex = await advanceWorkflow(tx, tenantId, workflowId, ttlSeconds);
            scopes.advanced(workflowId, nextIndex);
            outcome = "advanced";
            return;
          }
          // a failed step stores nothing (spec 7: the index does not advance)
          throw new StepFailed();
        },
        { changes },
      );
    } catch (thrown) {
      if (thrown instanceof StepFailed) return { result: result!, nextIndex: nextIndex! };
      // whatever an error stands for (a query that does not parse, a database error such as a
      // division by zero in $filter) is answered as the ServiceError every host maps it to, so
      // that it carries the index to send next, whoever called the step (a route, a $batch
      // part, an MCP tool); an unexpected one stays what it is, for the host to log
      const mapped = errorResponse(thrown, model);
      if (mapped.unexpected || nextIndex === undefined) throw thrown;
      throw mapped.error.withHeaders({ ...mapped.headers, [NEXT_INDEX]: String(nextIndex) });
    } finally {
      observe?.step(outcome);
    }
    return { result: result!, nextIndex: nextIndex! };
  };

  /** the staged records' commit in a step's unit (spec 4.7) */
  const commitIn = async (caller: WorkflowCaller, unit: WorkflowUnit): Promise<ODataResult> => {
    const { tenantId, session } = unit;
    const prompts = unit.prompts();
    const tenant = await tenantInfo(session, tenantId);
    const outcome = await commitWorkflow(
      { session, model, tenant, prompts, ...(writeLimits && { limits: writeLimits }) },
      unit.workflowId,
      caller.may,
      // the base tables as the database serves them: logged, unless the log is off
      (caller.db ?? db).store,
    );
    observe?.commit(outcome.kind);
    return commitResult(outcome, prompts);
  };

  /** an answer to a question of the step's workflow, and the method call that waited for it */
  const answerIn = async (
    caller: WorkflowCaller,
    unit: WorkflowUnit,
    promptId: string,
    choice: string,
  ): Promise<ODataResult> => {
    const { tenantId, workflowId, session: tx } = unit;
    const answered = await (async () => {
      const result = await answerQuestion(tx, tenantId, workflowId, promptId, choice);
      if (result.outcome !== "answered") return { result };
      if (result.deferred === null) {
        requireStagedRights(caller.may, model, await stagedEntities(tx, model, tenantId, workflowId), "answer");
        return { result };
      }
      const { entity: name, ...call } = result.deferred;
      const entity = resolveEntity(model, name);
      const method = {
        kind: "call",
        entity: name,
        method: call.name,
        type: entity.methods[call.name]!.type,
      } as const;
      if (!caller.may(method)) throw forbidden(`calling ${name}.${call.name}, which this question waits to run`);
      if (choice !== "accept") return { result };
      const { env, prompts } = await methodEnvironment(tx, model, planner, tenantId, false, {
        unit,
        limits: writeLimits,
      });
      const outcome = await invokeMethod(env, { ...call, entity }, entity.methods[call.name]!);
      if (outcome.status === "aborted") throw outcome.error;
      return { result, prompts: prompts.envelope() };
    })();
    switch (answered.result.outcome) {
      case "answered": {
        const body = {
          ...(answered.prompts && { "@workflow.userprompts": answered.prompts }),
          message: "Answer recorded.",
        };
        return jsonResult(200, JSON.stringify(body));
      }
      case "unknownPrompt":
        throw new ServiceError("NotFound", "This workflow has no such question.");
      case "unknownChoice":
        throw new ServiceError("InvalidChoice", `"${choice}" is not a choice of this question.`);
      case "alreadyAnswered":
        throw new ServiceError("AlreadyAnswered", "This question has already been answered.");
    }
  };

  const found = (workflow: { id: string; nextIndex: number } | undefined, ifMissing: ServiceError) => {
    if (workflow === undefined) throw ifMissing;
    return jsonResult(200, JSON.stringify({ workflowId: workflow.id, nextIndex: workflow.nextIndex }), {
      [NEXT_INDEX]: String(workflow.nextIndex),
    });
  };

  return {
    /** `POST {base}/workflow[?stagingKey=…]` (expired workflows of the tenant are swept first) */
    async create(caller: WorkflowCaller, stagingKey: string | null): Promise<ODataResult> {
      const workflow = await inTenant(caller.db ?? db, caller.tenantId, async (tx) => {
        await sweepExpired(tx, model, caller.tenantId);
        return createWorkflow(tx, caller.tenantId, caller.owner, stagingKey, ttlSeconds);
      });
      const body = { message: "Workflow created.", workflowId: workflow.id, nextIndex: workflow.nextIndex };
      return jsonResult(200, JSON.stringify(body), { [NEXT_INDEX]: String(workflow.nextIndex) });
    },

    /** `GET {base}/workflow/{id}`: the caller's open workflow and the index to send next */
    async resume(caller: WorkflowCaller, id: string): Promise<ODataResult> {
      const { tenantId, owner } = caller;
      return found(
        await inTenant(caller.db ?? db, tenantId, (tx) => findWorkflow(tx, tenantId, owner, id)),
        notFound(),
      );
    },

    /** `GET {base}/workflow/active?stagingKey=…` (spec 4.6 rule 1) */
    async findActive(caller: WorkflowCaller, stagingKey: string | undefined): Promise<ODataResult> {
      const { tenantId, owner } = caller;
      if (!stagingKey) throw new ServiceError("MissingParameter", "Give the stagingKey to look for.", "stagingKey");
      const workflow = await inTenant(caller.db ?? db, tenantId, (tx) =>
        findActiveWorkflow(tx, tenantId, owner, stagingKey),
      );
      const missing = new ServiceError("NotFound", `You have no active workflow with staging key "${stagingKey}".`);
      return found(workflow, missing);
    },

    /**
     * `DELETE {base}/workflow/{id}`: the owner disposes it; every uncommitted change is discarded,
     * so the owner needs the rights those changes took (403 otherwise, the workflow intact)
     */
    async close(caller: WorkflowCaller, id: string): Promise<ODataResult> {
      const { tenantId, owner } = caller;
      await inTenant(caller.db ?? db, tenantId, async (tx) => {
        if ((await findWorkflow(tx, tenantId, owner, id, { lock: true })) === undefined) throw notFound();
        const staged = await stagedEntities(tx, model, tenantId, id);
        requireStagedRights(caller.may, model, staged, "close");
        await discardStaged(tx, model, tenantId, id, { staged });
        await closeWorkflow(tx, tenantId, id);
        scopes.forget(id);
      });
      return noContent();
    },

    /**
     * One request as a step of the workflow `headers` name (spec 7): `run` gets the step's unit
     * of work to serve the request in (`service.handle(request, unit)`), and the index advances
     * when its result is a 2xx; anything else rolls the step back. Answers `run`'s result and the
     * index to send next (for `Workflow-Next-Index`); errors carry that header too.
     */
    step: <R extends { readonly status: number }>(
      caller: WorkflowCaller,
      headers: StepHeaders,
      run: (unit: WorkflowUnit) => Promise<R>,
    ) => runStep(caller, headers, run, succeeded),

    /**
     * `POST {base}/workflow/commit`, a step of its own: 200, 422 or 400 (spec 4.7), 403 without
     * the rights it needs. A 422 (a question pending) advances the index too: the commit was a
     * request the workflow answered
     */
    async commit(caller: WorkflowCaller, headers: StepHeaders | undefined): Promise<ODataResult> {
      const kept = (status: number) => succeeded(status) || status === 422;
      try {
        if (headers === undefined) throw stepRequired();
        const { result, nextIndex } = await runStep(caller, headers, (unit) => commitIn(caller, unit), kept);
        return withNextIndex(result, nextIndex);
      } catch (err) {
        observe?.commit("failed");
        throw err;
      }
    },

    /**
     * `POST {base}/userprompts/{promptId}/answer/{choice}`, a step of its own: records the
     * answer; a method call that waited for it (AskUser) runs now, in the workflow, when the
     * choice is "accept". An answer continues a write, so it needs the caller's rights now: to
     * call the method that waits, or else to make the writes the workflow staged (a 403 rolls
     * the step back, the question stays open).
     */
    async answer(
      caller: WorkflowCaller,
      headers: StepHeaders | undefined,
      promptId: string,
      choice: string,
    ): Promise<ODataResult> {
      if (headers === undefined) throw stepRequired();
      const run = (unit: WorkflowUnit) => answerIn(caller, unit, promptId, choice);
      const { result, nextIndex } = await runStep(caller, headers, run, succeeded);
      return withNextIndex(result, nextIndex);
    },
  };
}

export type WorkflowService = ReturnType<typeof createWorkflowService>;
