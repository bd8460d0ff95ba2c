/**
 * Webhook receivers for tests: a node:http server on a loopback port that records every request
 * (headers, body, when it came in and went out) and answers with the status `answer` gives for
 * it. It notes an id that arrives while a request with the same id is still in flight (`overlaps`):
 * two hosts sending one event at the same moment. And the webhook settings every test's
 * deliverer uses, so that on a PostgreSQL shared by test workers whichever deliverer takes a
 * subscription delivers as its test expects: short waits, few attempts, loopback receivers.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookSettings } from "@bizdata/host";

export const webhookTestSettings: WebhookSettings = {
  enabled: true,
  pollIntervalMs: 20,
  timeoutMs: 2000,
  maxAttempts: 4,
  backoff: { baseMs: 10, maxMs: 40 },
  concurrency: 4,
  allowInsecure: true,
  perTenant: 25,
};

export interface Received {
  readonly id: string;
  /** the path and query the request was sent to */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** the status answered */
  readonly status: number;
}

export interface Receiver {
  readonly url: string;
  /** how many requests came in so far, answered or not */
  arrived(): number;
  /** every request, in the order answered */
  readonly received: Received[];
  /** the ids that came while a request with the same id was in flight */
  readonly overlaps: string[];
  /** the requests answered 2xx */
  accepted(): Received[];
  close(): Promise<void>;
}

/**
 * `answer(request, n)` is the status for the n-th request (from 1) with that webhook-id; it may
 * take its time, which keeps the request in flight.
 */
export async function startReceiver(
  answer: (headers: IncomingHttpHeaders, n: number) => number | Promise<number> = () => 204,
): Promise<Receiver> {
  const received: Received[] = [];
  const overlaps: string[] = [];
  const inFlight = new Set<string>();
  const seen = new Map<string, number>();
  let arrived = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      arrived++;
      const id = String(req.headers["webhook-id"] ?? "");
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      const status = await answer(req.headers, n);
      received.push({
        id,
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        status,
      });
      inFlight.delete(id);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrived: () => arrived,
    received,
    overlaps,
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** waits until `condition` holds, checking every 20 ms; fails saying `what` did not happen */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  for (const end = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (await condition()) return;
    if (Date.now() > end) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
  }
}
