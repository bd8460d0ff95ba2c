/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): a subscription's secret is
 * `whsec_` and the base64 of 32 random bytes, those bytes are the HMAC-SHA256 key, and an
 * attempt's `webhook-signature` is `v1,` and the base64 of the HMAC of
 * `${webhook-id}.${webhook-timestamp}.${body}`, the timestamp in Unix seconds. A receiver checks
 * it with any Standard Webhooks library (or the few lines of examples/src/sync/webhook-receiver.ts).
 */
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** a new subscription's secret */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString("base64")}`;

/** the headers that sign `body` sent as event `id` at `timestamp` (Unix seconds) with `secret` */
export function signatureHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(PREFIX.length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${signature}`,
  };
}
