/**
 * The tools act through the API itself: every read, write and method call is an HTTP request to
 * the same app (`app.fetch`, in process), with the caller's own bearer token, so authentication,
 * permissions, feature gating, tenant isolation, validation and business logic are exactly the
 * HTTP API's. Workflow steps go through @bizdata/workflow/client, which keeps the index.
 */
import { type ErrorCode, statusOf } from "@bizdata/core";
import { type Method, type PromptEnvelope, WorkflowClient, WorkflowError } from "@bizdata/workflow/client";

export type AppFetch = (request: Request) => Response | Promise<Response>;

/** what a call answered: the status, the JSON body, and the prompts it carried */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  /** `@workflow.userprompts` in a workflow, `@userprompts` on a plain request */
  readonly prompts: PromptEnvelope;
}

/** a failed call: the API's error body (api-conventions "Errors") and its status */
export class ApiFailure extends Error {
  override readonly name = "ApiFailure";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target: string | undefined,
    readonly details: readonly unknown[],
    readonly prompts: PromptEnvelope,
  ) {
    super(message);
  }

  /** a failure the tools answer themselves, under a code of the registry and its status */
  static named(code: ErrorCode, message: string, target?: string): ApiFailure {
    return new ApiFailure(statusOf(code), code, message, target, [], {});
  }

  static of(error: WorkflowError): ApiFailure {
    return new ApiFailure(error.status, error.code, error.message, error.target, error.details, error.response.prompts);
  }
}

// decimals as JSON numbers, no annotations: what an agent reads most easily
const ACCEPT = "application/json;odata.metadata=none";

export interface ApiSettings {
  readonly fetch: AppFetch;
  /** the origin the MCP request came to; the in-process requests carry it */
  readonly origin: string;
  readonly basePath: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export class ApiCalls {
  /** the bearer token of the MCP request being served: a session's client follows refreshed tokens */
  token = "";
  readonly workflowClient: WorkflowClient;

  constructor(private readonly settings: ApiSettings) {
    this.workflowClient = new WorkflowClient({
      baseUrl: settings.origin,
      basePath: settings.basePath,
      token: () => this.token,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        request.headers.set("Accept", ACCEPT);
        return settings.fetch(request);
      },
    });
  }

  /** `{basePath}/{resource}?{search}` */
  path(resource: string, search?: URLSearchParams): string {
    const query = search === undefined || search.size === 0 ? "" : `?${search}`;
    return `${this.settings.basePath}/${resource}${query}`;
  }

  /** a plain request (no workflow); a non-2xx answer throws an ApiFailure */
  async send(method: Method, path: string, body?: unknown): Promise<ApiAnswer> {
    const headers = new Headers({ Authorization: `Bearer ${this.token}`, Accept: ACCEPT });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    const response = await this.settings.fetch(
      new Request(`${this.settings.origin}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
    const text = await response.text();
    const json = /[/+]json\b/i.test(response.headers.get("Content-Type") ?? "");
    const parsed: unknown = text === "" ? undefined : json ? JSON.parse(text) : text;
    const envelope = isRecord(parsed) ? parsed["@userprompts"] : undefined;
    const prompts = (isRecord(envelope) ? envelope : {}) as PromptEnvelope;
    if (response.status >= 200 && response.status < 300) return { status: response.status, body: parsed, prompts };
    const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : {};
    throw new ApiFailure(
      response.status,
      typeof error.code === "string" ? error.code : "HttpError",
      typeof error.message === "string" ? error.message : `${method} ${path} failed with HTTP ${response.status}.`,
      typeof error.target === "string" ? error.target : undefined,
      Array.isArray(error.details) ? error.details : [],
      prompts,
    );
  }
}

/** runs a workflow client call, turning its WorkflowError into an ApiFailure */
export async function inWorkflow<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof WorkflowError ? ApiFailure.of(err) : err;
  }
}
