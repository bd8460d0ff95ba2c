/**
 * The workflows an MCP connection works in, as a person's client keeps them: per workflow the
 * index to send next (spec 7), taken from every step's answer and resynced after a 409 that names
 * the expected one, with the calls on one workflow made one after another so they never race
 * their own index; the one used last as the default for the next write, and a workflow started by
 * itself when a write comes and there is none. A workflow named by id that it does not hold yet
 * (one from an earlier connection, or another host's) is resumed, its index read from the
 * database. A 2025 session keeps one across its requests; a 2026-07-28 request stands alone and
 * gets a fresh one, so the workflow's id is the handle an agent passes on. Each request's calls
 * are its own (`of`).
 */
import type { StepHeaders } from "@bizdata/workflow";
import { type ApiCalls, ApiFailure, type CommitStatus, type Method, type StepAnswer } from "./api-calls.js";

/** how often one call resyncs and is sent again after a 409 (as @bizdata/workflow/client does) */
const MAX_RESYNCS = 3;

/** one workflow as the connection holds it */
export class WorkflowHandle {
  /** settles when the last queued call has finished */
  tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    /** the `Workflow-Index` the next call sends */
    public nextIndex: number,
    /** started here: closed when a 2025 session ends; a resumed one stays open for its owner */
    readonly owned: boolean,
  ) {}
}

/** a commit's outcome (spec 4.7) with what it answered */
export interface CommitAnswer {
  readonly status: CommitStatus;
  readonly response: StepAnswer;
}

/** the connection's workflows for the calls of one request */
export interface Workflows {
  /** a new workflow, which becomes the current one */
  start(stagingKey?: string): Promise<WorkflowHandle>;
  /**
   * The workflow `id`, or the current one; with `startIfNone` a write that names none where
   * there is none starts it.
   */
  get(id: string | undefined, startIfNone: boolean): Promise<WorkflowHandle>;
  /** a request as a step of the workflow; a non-2xx answer throws an ApiFailure */
  request(workflow: WorkflowHandle, method: Method, path: string, body?: unknown): Promise<StepAnswer>;
  /** answers a question of the workflow with the key of a choice */
  answer(workflow: WorkflowHandle, promptId: string, choice: string): Promise<StepAnswer>;
  /** commits the staged changes; the workflow stays open whatever the outcome */
  commit(workflow: WorkflowHandle): Promise<CommitAnswer>;
  /** closes the workflow (its staged state is discarded) and forgets it */
  close(workflow: WorkflowHandle): Promise<void>;
}

export class SessionWorkflows {
  readonly #handles = new Map<string, WorkflowHandle>();
  #current: string | undefined;

  /** the workflows, called through `api` (the request being served) */
  of(api: ApiCalls): Workflows {
    return {
      start: async (stagingKey) => {
        const { workflowId, nextIndex } = await api.create(stagingKey);
        return this.#use(new WorkflowHandle(workflowId, nextIndex, true));
      },
      get: async (id, startIfNone) => {
        if (id !== undefined) {
          const known = this.#handles.get(id.toLowerCase());
          if (known !== undefined) return this.#use(known);
          const { workflowId, nextIndex } = await api.resume(id);
          return this.#use(new WorkflowHandle(workflowId, nextIndex, false));
        }
        const current = this.#current === undefined ? undefined : this.#handles.get(this.#current);
        if (current !== undefined) return current;
        if (startIfNone) return this.of(api).start();
        throw ApiFailure.named(
          "NoWorkflow",
          "No workflow is named and this connection holds none: give workflowId (a change's answer carries it), or stage a change first (that starts one).",
          "workflowId",
        );
      },
      request: (workflow, method, path, body) =>
        this.#step(workflow, (headers) => api.step(headers, method, path, body)),
      answer: (workflow, promptId, choice) => this.#step(workflow, (headers) => api.answer(headers, promptId, choice)),
      commit: async (workflow) => {
        const { outcome, ...response } = await this.#step(workflow, (headers) => api.commit(headers));
        return { status: outcome, response };
      },
      close: async (workflow) => {
        await this.#close(api, workflow);
        this.#forget(workflow.id);
      },
    };
  }

  /**
   * The session ends (its client deleted it): the workflows it started are closed, as when a
   * person's client disposes its connection (spec 3.1); resumed ones stay open for their owner.
   */
  async dispose(api: ApiCalls): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    this.#current = undefined;
    await Promise.allSettled(handles.filter((h) => h.owned).map((h) => this.#close(api, h)));
  }

  /** closes after the calls already queued; a workflow already gone (404) counts as closed */
  #close(api: ApiCalls, workflow: WorkflowHandle): Promise<void> {
    return this.#serial(workflow, async () => {
      try {
        await api.close(workflow.id);
      } catch (err) {
        if (!(err instanceof ApiFailure && err.status === 404)) throw err;
      }
    });
  }

  /**
   * One step with the workflow's index, its answer's index kept for the next. A 409 that names the
   * expected index (another client of the owner's stepped meanwhile) is sent again with it. A
   * workflow that is gone — closed by its owner, expired — answers 404 without a next index: it
   * is forgotten, so the next change starts a new one.
   */
  #step<T extends StepAnswer>(workflow: WorkflowHandle, call: (headers: StepHeaders) => Promise<T>): Promise<T> {
    return this.#serial(workflow, async () => {
      for (let resyncs = 0; ; resyncs++) {
        try {
          const answer = await call({ workflowId: workflow.id, index: String(workflow.nextIndex) });
          workflow.nextIndex = answer.nextIndex;
          return answer;
        } catch (err) {
          if (!(err instanceof ApiFailure)) throw err;
          if (err.nextIndex !== undefined) workflow.nextIndex = err.nextIndex;
          else if (err.status === 404) this.#forget(workflow.id);
          if (err.code !== "WorkflowIndexConflict" || err.nextIndex === undefined || resyncs >= MAX_RESYNCS) throw err;
        }
      }
    });
  }

  /** runs `task` after every call queued on the workflow before it, whatever their outcome */
  #serial<T>(workflow: WorkflowHandle, task: () => Promise<T>): Promise<T> {
    const result = workflow.tail.then(task);
    workflow.tail = result.catch(() => undefined);
    return result;
  }

  #forget(id: string): void {
    this.#handles.delete(id);
    if (this.#current === id) this.#current = undefined;
  }

  #use(workflow: WorkflowHandle): WorkflowHandle {
    this.#handles.set(workflow.id, workflow);
    this.#current = workflow.id;
    return workflow;
  }
}
