/**
 * One HTTP exchange with the service: `Authorization: Bearer <token>` on every request (spec 5.2),
 * the token taken afresh from a provider each time, JSON request bodies (spec 4), and the response
 * read once into a WorkflowResponse.
 */
import { type PromptEnvelope, readPrompts } from "./prompts.js";

export type TokenSource = string | (() => string | Promise<string>);

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

export interface WorkflowResponse {
  readonly status: number;
  readonly headers: Headers;
  /** the parsed JSON body, the text of any other body, or undefined when the body is empty */
  readonly body: unknown;
  /** `@workflow.userprompts` of the body (spec 2.4); `{}` when absent */
  readonly prompts: PromptEnvelope;
}

export interface TransportOptions {
  /** the service base address; request paths (`/api/...`) are appended to it */
  readonly baseUrl: string;
  /** where the service is mounted under `baseUrl` (`createApp({ basePath })`); default `/api` */
  readonly basePath?: string;
  readonly token: TokenSource;
  readonly fetch?: typeof fetch;
}

export const isSuccess = (response: WorkflowResponse): boolean => response.status >= 200 && response.status < 300;

export class Transport {
  /** the paths the client builds itself (workflow, commit, answer) start with it */
  readonly basePath: string;
  readonly #baseUrl: string;
  readonly #token: TokenSource;
  readonly #fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.basePath = (options.basePath ?? "/api").replace(/\/+$/, "");
    this.#token = options.token;
    // called unbound: the global fetch of a browser refuses any other `this`
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Sends one request; `headers` are the caller's, the bearer token is set over them. */
  async send(method: Method, path: string, body?: unknown, headers?: Headers): Promise<WorkflowResponse> {
    const sent = new Headers(headers);
    const token = typeof this.#token === "string" ? this.#token : await this.#token();
    sent.set("Authorization", `Bearer ${token}`);
    const init: RequestInit = { method, headers: sent };
    if (body !== undefined) {
      sent.set("Content-Type", "application/json");
      init.body = JSON.stringify(body);
    }
    return readResponse(await this.#fetch(this.#baseUrl + path, init));
  }
}

async function readResponse(response: Response): Promise<WorkflowResponse> {
  const raw = await response.text();
  const body = raw === "" ? undefined : parseBody(raw, response.headers.get("Content-Type") ?? "");
  return { status: response.status, headers: response.headers, body, prompts: readPrompts(body) };
}

function parseBody(raw: string, contentType: string): unknown {
  if (!/[/+]json\b/i.test(contentType)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
