/**
 * The tools act through the services the API's routes call — @bizdata/odata's service for every
 * read, write and method call, @bizdata/workflow's for the workflows and their steps — as the
 * caller the MCP request authenticated, with the routes' own permission checks and on that
 * request's database, so authentication happens once, permissions, feature gating, tenant
 * isolation, validation and business logic are exactly the HTTP API's, and the tools' statements
 * and log lines belong to the MCP request. One ApiCalls serves one MCP request.
 */
import { type ErrorCode, type Model, type PromptEnvelope, statusOf, type UnitOfWork } from "@bizdata/core";
import { errorResponse, jsonResult, type ODataRequest, type ODataResult, serviceRequest } from "@bizdata/odata";
import type { StepHeaders, WorkflowCaller, WorkflowService } from "@bizdata/workflow";
import type { Logger } from "pino";

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** what a call answered: the status, the JSON body, and the prompts it carried */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  /** `@workflow.userprompts` in a workflow, `@userprompts` on a plain request */
  readonly prompts: PromptEnvelope;
}

/** what a workflow step answered, and the index the workflow takes next */
export interface StepAnswer extends ApiAnswer {
  readonly nextIndex: number;
}

/** a failed call: the API's error (api-conventions "Errors") and its status */
export class ApiFailure extends Error {
  override readonly name = "ApiFailure";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target: string | undefined,
    readonly details: readonly unknown[],
    readonly prompts: PromptEnvelope,
    /** a failed workflow step's index to send next (`Workflow-Next-Index`), when the workflow named it */
    readonly nextIndex?: number,
  ) {
    super(message);
  }

  /** a failure the tools answer themselves, under a code of the registry and its status */
  static named(code: ErrorCode, message: string, target?: string): ApiFailure {
    return new ApiFailure(statusOf(code), code, message, target, [], {});
  }
}

export interface ApiSettings {
  /** the OData service's answer to `request` for the MCP request's caller, in `unit` when given (callService) */
  readonly handle: (request: ODataRequest, unit?: UnitOfWork) => Promise<ODataResult>;
  readonly workflows: WorkflowService;
  /** the MCP request's caller as the workflow service takes it (workflowCallerOf) */
  readonly caller: WorkflowCaller;
  readonly model: Model;
  /** the origin the MCP request came to: the URLs of the service requests have it */
  readonly origin: string;
  readonly basePath: string;
  /** the MCP request's logger: an unexpected error is logged as the API logs it */
  readonly logger: Logger;
  /** runs one call in a place of the caller's tenant (TenantShare); no share when left out */
  readonly place?: <T>(work: () => Promise<T>) => Promise<T>;
  /** told of every call when it has answered (the MCP request's log notifications) */
  readonly observe?: (call: ObservedCall) => void;
}

/** a call as its observer sees it */
export interface ObservedCall {
  readonly method: Method;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
}

// decimals as JSON numbers, no annotations: what an agent reads most easily
const ACCEPT = "application/json;odata.metadata=none";
const NEXT_INDEX = "Workflow-Next-Index";
const PLAIN_PROMPTS = "@userprompts";
const WORKFLOW_PROMPTS = "@workflow.userprompts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `Workflow-Next-Index` of a result's or an error's headers */
const nextIndexOf = (headers: Readonly<Record<string, string>>): number | undefined => {
  const value = headers[NEXT_INDEX];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
};

/** what a commit answered (spec 4.7): 200 saved, 422 a question pending (index advanced), 400 rejected */
export type CommitStatus = "saved" | "questionPending" | "rejected";

const COMMIT_OUTCOMES: Readonly<Record<number, CommitStatus>> = {
  200: "saved",
  422: "questionPending",
  400: "rejected",
};

export class ApiCalls {
  constructor(private readonly settings: ApiSettings) {}

  /** the same calls, each also told to `observe` */
  observed(observe: (call: ObservedCall) => void): ApiCalls {
    return new ApiCalls({ ...this.settings, observe });
  }

  /** `{basePath}/{resource}?{search}` */
  path(resource: string, search?: URLSearchParams): string {
    const query = search === undefined || search.size === 0 ? "" : `?${search}`;
    return `${this.settings.basePath}/${resource}${query}`;
  }

  /** a plain request (no workflow); a non-2xx answer throws an ApiFailure */
  send(method: Method, path: string, body?: unknown): Promise<ApiAnswer> {
    return this.#call(method, path, async () => {
      const answer = this.#answer(await this.#handle(method, path, body), PLAIN_PROMPTS);
      return this.#succeeded(answer, method, path);
    });
  }

  /** a request as a step of the workflow `headers` name; a non-2xx answer throws an ApiFailure */
  step(headers: StepHeaders, method: Method, path: string, body?: unknown): Promise<StepAnswer> {
    return this.#call(method, path, async () => {
      const { caller, workflows } = this.settings;
      const run = (unit: UnitOfWork) => this.#handle(method, path, body, unit);
      const { result, nextIndex } = await workflows.step(caller, headers, run);
      const answer = { ...this.#answer(result, WORKFLOW_PROMPTS), nextIndex };
      return this.#succeeded(answer, method, path);
    });
  }

  /**
   * The workflow's commit (spec 4.7): its three outcomes, a 400 the commit threw (a hook's refusal)
   * as a rejection like one it answered; anything else (409, 403) throws an ApiFailure
   */
  commit(headers: StepHeaders): Promise<StepAnswer & { readonly outcome: CommitStatus }> {
    return this.#call("POST", this.path("workflow/commit"), async () => {
      const result = await this.settings.workflows.commit(this.settings.caller, headers).catch((err: unknown) => {
        const { status, error, headers } = errorResponse(err, this.settings.model);
        if (status !== 400) throw err;
        return jsonResult(status, JSON.stringify(error.toJSON()), headers);
      });
      const nextIndex = nextIndexOf(result.headers) ?? Number(headers.index);
      const answer = { ...this.#answer(result, WORKFLOW_PROMPTS), nextIndex };
      const outcome = COMMIT_OUTCOMES[answer.status];
      if (outcome === undefined) throw failureOf(answer, `Commit failed with HTTP ${answer.status}.`);
      return { ...answer, outcome };
    });
  }

  /** answers the workflow's question `promptId` with `choice` (the answer link, spec 4.6) */
  answer(headers: StepHeaders, promptId: string, choice: string): Promise<StepAnswer> {
    return this.#call("POST", this.path(`userprompts/${promptId}/answer`), async () => {
      const { caller, workflows } = this.settings;
      const result = await workflows.answer(caller, headers, promptId, choice);
      return { ...this.#answer(result, WORKFLOW_PROMPTS), nextIndex: nextIndexOf(result.headers)! };
    });
  }

  /** a new workflow of the caller's, and the index to send first */
  create(stagingKey: string | undefined): Promise<WorkflowState> {
    return this.#call("POST", this.path("workflow"), async () =>
      stateOf(await this.settings.workflows.create(this.settings.caller, stagingKey ?? null)),
    );
  }

  /** the caller's open workflow `id`, and the index to send next */
  resume(id: string): Promise<WorkflowState> {
    return this.#call("GET", this.path(`workflow/${id}`), async () =>
      stateOf(await this.settings.workflows.resume(this.settings.caller, id)),
    );
  }

  /** closes the workflow `id`, its staged state discarded */
  close(id: string): Promise<void> {
    return this.#call("DELETE", this.path(`workflow/${id}`), async () => {
      await this.settings.workflows.close(this.settings.caller, id);
    });
  }

  #handle(method: Method, path: string, body: unknown, unit?: UnitOfWork): Promise<ODataResult> {
    const { origin, basePath, caller } = this.settings;
    const headers = new Headers({ Accept: ACCEPT });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    // the tool's arguments are JSON the MCP transport parsed, and their input schema bounds their
    // shape by the model's: the service takes them as they are, not written and parsed again
    const read = body === undefined ? undefined : () => Promise.resolve(body);
    const request = serviceRequest(method, new URL(path, origin), headers, read, {
      basePath,
      tenantId: caller.tenantId,
    });
    return this.settings.handle(request, unit);
  }

  /** a call in the caller's tenant place, with what it throws turned into the ApiFailure the API's answer states */
  async #call<T>(method: Method, path: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const told = (status: number) =>
      this.settings.observe?.({ method, path, status, ms: Math.round(performance.now() - started) });
    try {
      const result = await (this.settings.place ? this.settings.place(work) : work());
      told(isRecord(result) && typeof result.status === "number" ? result.status : 200);
      return result;
    } catch (err) {
      const failure = err instanceof ApiFailure ? err : this.#failureOf(err, method, path);
      told(failure.status);
      throw failure;
    }
  }

  /** what a call threw as the ApiFailure the API's answer states */
  #failureOf(err: unknown, method: Method, path: string): ApiFailure {
    const { status, error, headers, unexpected } = errorResponse(err, this.settings.model);
    if (unexpected) this.settings.logger.error({ err, method, path }, "request failed");
    const { code, message, target, details } = error;
    return new ApiFailure(status, code, message, target, details, {}, nextIndexOf(headers));
  }

  #answer(result: ODataResult, envelope: string): ApiAnswer {
    const text = result.body ?? "";
    const json = /[/+]json\b/i.test(result.headers["Content-Type"] ?? "");
    const body: unknown = text === "" ? undefined : json ? JSON.parse(text) : text;
    const prompts = isRecord(body) && isRecord(body[envelope]) ? (body[envelope] as PromptEnvelope) : {};
    return { status: result.status, body, prompts };
  }

  #succeeded<A extends ApiAnswer>(answer: A, method: Method, path: string): A {
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw failureOf(answer, `${method} ${path} failed with HTTP ${answer.status}.`);
  }
}

/** a workflow and the index it takes next */
export interface WorkflowState {
  readonly workflowId: string;
  readonly nextIndex: number;
}

const stateOf = (result: ODataResult): WorkflowState => {
  const { workflowId, nextIndex } = JSON.parse(result.body ?? "{}") as WorkflowState;
  return { workflowId, nextIndex };
};

/** the failure an answer's error body states */
function failureOf(answer: ApiAnswer & { readonly nextIndex?: number }, otherwise: string): ApiFailure {
  const error = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : {};
  return new ApiFailure(
    answer.status,
    typeof error.code === "string" ? error.code : "HttpError",
    typeof error.message === "string" ? error.message : otherwise,
    typeof error.target === "string" ? error.target : undefined,
    Array.isArray(error.details) ? error.details : [],
    answer.prompts,
    answer.nextIndex,
  );
}
