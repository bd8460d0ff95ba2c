/**
 * OAuth Client ID Metadata Documents for tests: a local HTTP server that publishes them, and the
 * `fetch` the host's OAuth server is given, which takes their https URLs (a client id must be
 * one) to that server the way DNS takes a published name to its address. On that one hop the
 * provider's dispatcher, which refuses loopback addresses, is left out; everything else of the
 * provider's fetch (timeout, no redirects, size bound) stays.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface PublishedDocument {
  /** the body as sent: a document (as JSON), or any text */
  readonly body: unknown;
  readonly status?: number;
  readonly headers?: Record<string, string>;
}

export interface MetadataDocuments {
  /** the https origin the documents are published under, e.g. https://agent.example */
  readonly origin: string;
  /** the URL of the document at `path`: a client id */
  urlOf(path: string): string;
  /** publishes (or replaces) the document at `path` */
  publish(path: string, document: PublishedDocument): void;
  /** the paths the server was asked for, in order */
  readonly requests: string[];
  /** for the OAuth server's settings (createApp's `oauthServer.fetch`) */
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

export async function serveMetadataDocuments(origin = "https://agent.example"): Promise<MetadataDocuments> {
  const documents = new Map<string, PublishedDocument>();
  const requests: string[] = [];
  const server = await new Promise<Server>((resolve) => {
    const s = createServer((req, res) => {
      const path = req.url ?? "/";
      requests.push(path);
      const document = documents.get(path);
      if (document === undefined) {
        res.writeHead(404).end();
        return;
      }
      const text = typeof document.body === "string" ? document.body : JSON.stringify(document.body);
      res.writeHead(document.status ?? 200, { "Content-Type": "application/json", ...document.headers }).end(text);
    }).listen(0, "127.0.0.1", () => resolve(s));
  });
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const published: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return fetch(input, init);
    const { dispatcher: _loopbackRefused, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
    return fetch(`${local}${url.pathname}${url.search}`, rest);
  };
  return {
    origin,
    urlOf: (path) => `${origin}${path}`,
    publish: (path, document) => documents.set(path, document),
    requests,
    fetch: published,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
