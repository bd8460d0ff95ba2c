/**
 * The app's one way to the service: JSON requests under the service root with the access token
 * (refreshed once on a 401), answers as data (status, headers, parsed body), never a throw for
 * an HTTP status. What a request failed with is read from the OData error body when there is one.
 */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** the parsed JSON body, the text of a text body, or undefined when empty */
  readonly body: any;
}

export interface Tokens {
  /** the bearer token, undefined when signed out */
  access(): string | undefined;
  /** gets a new access token; false when it cannot (the session has ended) */
  refresh(): Promise<boolean>;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Http {
  /** the service root, absolute (`https://host/api`) */
  readonly root: string;
  /** `path` relative to the root (`/Product?…`), or absolute on its origin (`/api/userprompts/…`) */
  request(method: string, path: string, options?: RequestOptions): Promise<Answer>;
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === "") return undefined;
  return (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text;
}

/** a path under `root`; one starting with the root's own path is taken as it is */
export function urlOf(root: string, path: string): string {
  const base = new URL(root);
  return path.startsWith(`${base.pathname}/`) || path === base.pathname
    ? `${base.origin}${path}`
    : `${root}${path.startsWith("/") ? "" : "/"}${path}`;
}

export function createHttp(root: string, tokens: Tokens, onSignedOut: () => void): Http {
  const send = (method: string, path: string, options: RequestOptions) => {
    const access = tokens.access();
    return fetch(urlOf(root, path), {
      method,
      headers: {
        Accept: "application/json",
        ...(access !== undefined && { Authorization: `Bearer ${access}` }),
        ...(options.body !== undefined && { "Content-Type": "application/json" }),
        ...options.headers,
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    });
  };
  return {
    root,
    async request(method, path, options = {}) {
      let res = await send(method, path, options);
      if (res.status === 401) {
        if (await tokens.refresh()) res = await send(method, path, options);
        if (res.status === 401) onSignedOut();
      }
      return { status: res.status, headers: res.headers, body: await bodyOf(res) };
    },
  };
}

/** the error message an answer carries (`{"error":{"message"}}`), or its status */
export const errorText = (answer: Answer): string =>
  typeof answer.body?.error?.message === "string" ? answer.body.error.message : `HTTP ${answer.status}`;

/** an OData string literal: quotes doubled */
export const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
