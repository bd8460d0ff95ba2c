/**
 * What a client sent and what it got, recorded on the server side of the reference service, so
 * that a client test that fails says which request of the client's failed and what it was told.
 */

export interface Exchange {
  readonly method: string;
  /** path and query as the client sent them (not decoded) */
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: string;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: string;
}

type Fetch = (request: Request, ...rest: any[]) => Response | Promise<Response>;

/** bodies longer than this are cut in a report */
const SHOWN = 1500;
const cut = (text: string) => (text.length > SHOWN ? `${text.slice(0, SHOWN)}… (${text.length} chars)` : text);

export class ExchangeLog {
  readonly #entries: Exchange[] = [];

  /** wraps an app's fetch so every exchange through it is kept */
  record(fetch: Fetch): Fetch {
    return async (request, ...rest) => {
      const requestBody = request.body ? await request.clone().text() : "";
      const response = await fetch(request, ...rest);
      const responseBody = response.body ? await response.clone().text() : "";
      const url = new URL(request.url);
      this.#entries.push({
        method: request.method,
        url: url.pathname + url.search,
        requestHeaders: Object.fromEntries(request.headers),
        requestBody,
        status: response.status,
        responseHeaders: Object.fromEntries(response.headers),
        responseBody,
      });
      return response;
    };
  }

  /** a position to read from later with `since` */
  mark(): number {
    return this.#entries.length;
  }

  since(mark: number): readonly Exchange[] {
    return this.#entries.slice(mark);
  }

  /** the exchanges since `mark`, one paragraph each (the Authorization header left out) */
  describe(mark: number): string {
    const shown = this.since(mark).map((e) => {
      const headers = Object.entries(e.requestHeaders)
        .filter(([name]) => !["authorization", "host", "connection", "content-length"].includes(name))
        .map(([name, value]) => `${name}: ${value}`)
        .join("; ");
      return [
        `> ${e.method} ${e.url}`,
        headers && `> ${headers}`,
        e.requestBody && `> ${cut(e.requestBody)}`,
        `< ${e.status} ${cut(e.responseBody)}`,
      ]
        .filter(Boolean)
        .join("\n");
    });
    return shown.length === 0 ? "(no request reached the service)" : shown.join("\n");
  }
}
