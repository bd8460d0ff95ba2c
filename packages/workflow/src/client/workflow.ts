/**
 * A handle on one open workflow (spec 3.1, 4.6). It keeps the index to send next, sends every
 * staged call with it, and serializes its calls so it never races its own index.
 *
 * Failures: every call throws a WorkflowError for a non-2xx answer (the error carries the whole
 * response), except `commit`, whose 200, 422 and 400 are its three documented outcomes (spec 4.7)
 * and come back as a CommitResult. A 409 is retried after resyncing, at most `maxResyncs` times;
 * nothing else is retried, not even a network failure.
 */
import { WorkflowDisposedError, WorkflowError } from "./errors.js";
import { commitPath, indexAfter, isResyncable, stepHeaders } from "./index-protocol.js";
import { answerHref } from "./prompts.js";
import { isSuccess, type Method, type Transport, type WorkflowResponse } from "./transport.js";

export type CommitStatus = "saved" | "questionPending" | "rejected";

export interface CommitResult {
  /** 200 saved, 422 a question is pending (index advanced), 400 save-time validation failed */
  readonly status: CommitStatus;
  /** details are in `response.prompts` (spec 4.7) */
  readonly response: WorkflowResponse;
}

const COMMIT_OUTCOMES: Readonly<Record<number, CommitStatus>> = {
  200: "saved",
  422: "questionPending",
  400: "rejected",
};

/** a choice to answer: one from a question (it has the link), or a prompt id and choice key */
export type AnswerChoice = { readonly href: string } | { readonly promptId: string; readonly key: string };

export class Workflow implements AsyncDisposable {
  #index: number;
  #disposed = false;
  /** settles when the last queued call has finished */
  #tail: Promise<unknown> = Promise.resolve();

  /** Handles come from WorkflowClient; `owned` tells whether disposing closes the workflow. */
  constructor(
    private readonly transport: Transport,
    readonly id: string,
    nextIndex: number,
    readonly owned: boolean,
    private readonly maxResyncs: number,
  ) {
    this.#index = nextIndex;
  }

  /** the `Workflow-Index` the next call sends */
  get nextIndex(): number {
    return this.#index;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** A staged call (spec 4.6); a non-2xx answer throws a WorkflowError. */
  request(
    method: Method,
    path: string,
    body?: unknown,
    headers?: Readonly<Record<string, string>>,
  ): Promise<WorkflowResponse> {
    return this.#serial(async () => {
      const response = await this.#step(method, path, body, headers);
      if (!isSuccess(response)) throw WorkflowError.fromResponse(response, `${method} ${path}`);
      return response;
    });
  }

  get(path: string, headers?: Readonly<Record<string, string>>): Promise<WorkflowResponse> {
    return this.request("GET", path, undefined, headers);
  }

  post(path: string, body?: unknown, headers?: Readonly<Record<string, string>>): Promise<WorkflowResponse> {
    return this.request("POST", path, body, headers);
  }

  patch(path: string, body: unknown, headers?: Readonly<Record<string, string>>): Promise<WorkflowResponse> {
    return this.request("PATCH", path, body, headers);
  }

  /** Answers a question through its choice link: `POST {href}`, workflow headers, no body (spec 4.6). */
  answer(choice: AnswerChoice): Promise<WorkflowResponse> {
    return this.request(
      "POST",
      "href" in choice ? choice.href : answerHref(this.transport.basePath, choice.promptId, choice.key),
    );
  }

  /** Commits the staged changes (spec 4.7); the workflow stays open whatever the outcome. */
  commit(): Promise<CommitResult> {
    return this.#serial(async () => {
      const response = await this.#step("POST", commitPath(this.transport.basePath));
      const status = COMMIT_OUTCOMES[response.status];
      if (status === undefined) throw WorkflowError.fromResponse(response, "Commit");
      return { status, response };
    });
  }

  /**
   * Closes the workflow on the server whoever holds the handle (`DELETE /api/workflow/{id}`,
   * staged state discarded), after the calls already queued. A 404 counts as closed: the workflow
   * expired or was closed before. Calling it again does nothing.
   */
  close(): Promise<void> {
    return this.#serial(async () => {
      if (this.#disposed) return;
      const response = await this.transport.send(
        "DELETE",
        `${this.transport.basePath}/workflow/${encodeURIComponent(this.id)}`,
      );
      if (!isSuccess(response) && response.status !== 404) throw WorkflowError.fromResponse(response, "Close");
      this.#disposed = true;
    });
  }

  /**
   * The owner's handle closes the workflow (spec 3.1 "client disposes its connection"); a handle
   * that only resumed it forgets it locally (spec 3.1: that does not close it for its owner).
   */
  dispose(): Promise<void> {
    if (this.owned) return this.close();
    return this.#serial(async () => {
      this.#disposed = true;
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /** runs `task` after every call queued before it, whatever their outcome */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** one call with the current index, resent after each resyncable 409 (spec 7), at most maxResyncs times */
  async #step(
    method: Method,
    path: string,
    body?: unknown,
    headers?: Readonly<Record<string, string>>,
  ): Promise<WorkflowResponse> {
    if (this.#disposed) throw new WorkflowDisposedError(this.id);
    for (let resyncs = 0; ; resyncs++) {
      const sent = this.#index;
      const response = await this.transport.send(method, path, body, stepHeaders(headers, this.id, sent));
      this.#index = indexAfter(response, sent, path === commitPath(this.transport.basePath));
      if (!isResyncable(response) || resyncs >= this.maxResyncs) return response;
    }
  }
}
