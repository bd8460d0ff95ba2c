/**
 * A receiver of the service's webhooks (docs/guide/change-tracking.md, "Registering a webhook"):
 * it checks each request's Standard Webhooks signature with the subscription's secret, refuses
 * one older or newer than five minutes (a replay), takes an event it has already taken only once
 * (the service delivers at least once: the same `webhook-id` may come again), and answers 204
 * once the event is handled: any other answer, or none within the service's timeout, has it sent
 * again later. Nothing but node:http and node:crypto.
 *
 * Run it where the service can reach it, with the secret the registration answered:
 *
 *   WEBHOOK_SECRET=whsec_… PORT=4000 node --import tsx examples/src/sync/webhook-receiver.ts
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type RequestListener } from "node:http";
import { fileURLToPath } from "node:url";

/** what the service sends: one change of one record */
export interface ChangeEvent {
  /** `Product.created`, `Product.updated`, `Product.deleted`, … */
  readonly type: string;
  /** when the change was made */
  readonly timestamp: string;
  readonly data: {
    readonly entity: string;
    readonly key: string;
    readonly kind: "create" | "update" | "delete";
    /** an owned collection's item: its owner's Guid */
    readonly owner: string | null;
    /** an update's changed properties */
    readonly properties: string[] | null;
    /** the new values, where the entity logs them (`changeLog: "values"`) */
    readonly values: Record<string, unknown> | null;
    readonly actor: string | null;
    readonly requestId: string | null;
  };
}

/** how far a request's timestamp may be from this machine's clock, in seconds */
const TOLERANCE = 5 * 60;

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
};

/** whether `body` with `headers` is signed with `secret` (`whsec_…`) and recent, at `now` (Unix seconds) */
export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, body: string, now: number): boolean {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > TOLERANCE) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  // `v1,<base64>` entries, separated by spaces (more than one while a secret is being changed)
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    const given = Buffer.from(signature ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * The request handler: verified events go to `handle` once per webhook-id (kept in memory here;
 * a real receiver keeps them where it keeps what it does with them).
 */
export function webhookReceiver(secret: string, handle: (event: ChangeEvent) => void | Promise<void>): RequestListener {
  const taken = new Set<string>();
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (req.method !== "POST" || !verifyWebhook(secret, req.headers, body, Math.floor(Date.now() / 1000))) {
        res.writeHead(401).end();
        return;
      }
      const id = header(req.headers, "webhook-id")!;
      try {
        if (!taken.has(id)) {
          await handle(JSON.parse(body) as ChangeEvent);
          taken.add(id);
        }
        res.writeHead(204).end();
      } catch {
        // not handled: the service sends it again
        res.writeHead(500).end();
      }
    });
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret?.startsWith("whsec_")) throw new Error("Set WEBHOOK_SECRET to the secret the registration answered.");
  const port = Number(process.env.PORT ?? 4000);
  createServer(
    webhookReceiver(secret, (event) => console.log(`${event.timestamp} ${event.type} ${event.data.key}`)),
  ).listen(port, () => console.log(`receiving webhooks on port ${port}`));
}
