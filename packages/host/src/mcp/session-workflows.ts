/**
 * The workflows an MCP session works in, as a person's client keeps them: handles from
 * @bizdata/workflow/client (which keep the index, resync on 409 and answer by link), the one the
 * session used last as the default for the next write, and a workflow started by itself when a
 * write comes and there is none. A workflow named by id that this session does not hold yet (one
 * from an earlier session, or another host's) is resumed.
 */
import { type Workflow, type WorkflowClient, WorkflowError } from "@bizdata/workflow/client";
import { ApiFailure, inWorkflow } from "./api-calls.js";

export class SessionWorkflows {
  readonly #handles = new Map<string, Workflow>();
  #current: string | undefined;

  constructor(private readonly client: WorkflowClient) {}

  /** a new workflow, which becomes the session's current one */
  async start(stagingKey?: string): Promise<Workflow> {
    const workflow = await inWorkflow(() => this.client.create(stagingKey === undefined ? {} : { stagingKey }));
    return this.#use(workflow);
  }

  /**
   * The workflow `id`, or the session's current one; with `startIfNone` a write that names none
   * in a session without one starts it.
   */
  async get(id: string | undefined, startIfNone: boolean): Promise<Workflow> {
    if (id !== undefined) {
      const known = this.#handles.get(id.toLowerCase());
      return this.#use(known ?? (await inWorkflow(() => this.client.resume(id))));
    }
    const current = this.#current === undefined ? undefined : this.#handles.get(this.#current);
    if (current !== undefined) return current;
    if (startIfNone) return this.start();
    throw ApiFailure.named(
      "NoWorkflow",
      "This session has no workflow: give workflowId, or stage a change first (that starts one).",
      "workflowId",
    );
  }

  /**
   * One call on a workflow. A workflow that is gone — closed by its owner, expired — answers 404
   * without a next index: it is forgotten, so the next change starts a new one.
   */
  async step<T>(workflow: Workflow, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof WorkflowError)) throw err;
      if (err.status === 404 && !err.response.headers.has("Workflow-Next-Index")) this.#forget(workflow.id);
      throw ApiFailure.of(err);
    }
  }

  /** closes the workflow (its staged state is discarded) and forgets it */
  async close(workflow: Workflow): Promise<void> {
    await this.step(workflow, () => workflow.close());
    this.#forget(workflow.id);
  }

  /**
   * The session ends (its client deleted it): the workflows it started are closed, as when a
   * person's client disposes its connection (spec 3.1); resumed ones stay open for their owner.
   */
  async dispose(): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    this.#current = undefined;
    await Promise.allSettled(handles.map((h) => h.dispose()));
  }

  #forget(id: string): void {
    this.#handles.delete(id);
    if (this.#current === id) this.#current = undefined;
  }

  #use(workflow: Workflow): Workflow {
    this.#handles.set(workflow.id, workflow);
    this.#current = workflow.id;
    return workflow;
  }
}
