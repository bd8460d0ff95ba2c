/**
 * One attempt to deliver an event: a POST of its body to the endpoint, answered 2xx within the
 * timeout or failed. A redirect is a failure too: it is not followed (it could lead anywhere, a
 * private address included). The whole attempt, connection, request and the answer's status and
 * body, ends at the timeout, so a host never sends an event again while an attempt of its own is
 * still open. node:http rather than fetch: its `lookup` sees the address connected to
 * (webhook-endpoint.ts). What the receiver answers is read and dropped, up to a bound.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { namesPrivateAddress, publicLookup } from "./webhook-endpoint.js";

export type AttemptOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status?: number; readonly error: string };

export interface PostSettings {
  readonly timeoutMs: number;
  /** WEBHOOK_ALLOW_INSECURE: any address */
  readonly allowInsecure: boolean;
}

/** the most of an answer's body that is read before the connection is dropped */
const MAX_ANSWER_BYTES = 64 * 1024;

const USER_AGENT = "bizdata-webhooks";

export function postEvent(
  endpoint: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  settings: PostSettings,
): Promise<AttemptOutcome> {
  const url = new URL(endpoint);
  if (!settings.allowInsecure && namesPrivateAddress(url))
    return Promise.resolve({ ok: false, error: `${url.hostname} is not a public address` });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    /** `outcome`, the connection dropped unless the answer was read to its end (it may serve the next attempt) */
    const finish = (outcome: AttemptOutcome, ended = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!ended) req.destroy();
      resolve(outcome);
    };
    const req = send(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": USER_AGENT,
      },
      ...(!settings.allowInsecure && { lookup: publicLookup }),
    });
    const timer = setTimeout(
      () => finish({ ok: false, error: `no answer within ${settings.timeoutMs} ms` }),
      settings.timeoutMs,
    );
    req.on("error", (err) => finish({ ok: false, error: err.message || err.name }));
    req.on("response", (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const outcome: AttemptOutcome =
        status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` };
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) finish(outcome);
      });
      res.on("end", () => finish(outcome, true));
      res.on("error", () => finish(outcome));
    });
    req.end(body);
  });
}
