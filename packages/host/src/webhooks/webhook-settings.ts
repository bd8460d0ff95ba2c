/** How webhooks are registered and delivered (WEBHOOK_…, docs/guide/configuration.md). */
import type { BackoffSettings } from "./retry-backoff.js";

export interface WebhookSettings {
  /** WEBHOOKS (on|off, default on): whether this host delivers events; registering works either way */
  readonly enabled: boolean;
  /** WEBHOOK_POLL_INTERVAL_MS: how often a host looks for subscriptions with work, and an idle one for new changes */
  readonly pollIntervalMs: number;
  /** WEBHOOK_TIMEOUT_MS: how long one attempt may take, connecting and answering */
  readonly timeoutMs: number;
  /** WEBHOOK_MAX_ATTEMPTS: attempts of an event before it is dead-lettered */
  readonly maxAttempts: number;
  /** WEBHOOK_BACKOFF_BASE_MS, WEBHOOK_BACKOFF_MAX_MS: the waits between attempts (retry-backoff.ts) */
  readonly backoff: BackoffSettings;
  /** WEBHOOK_CONCURRENCY: the most deliveries one host has in flight at once (one per subscription) */
  readonly concurrency: number;
  /** WEBHOOK_ALLOW_INSECURE (default off): endpoints may be plain http and any address (webhook-endpoint.ts) */
  readonly allowInsecure: boolean;
  /** WEBHOOKS_PER_TENANT: the most subscriptions a tenant may have */
  readonly perTenant: number;
}

export const defaultWebhookSettings: WebhookSettings = {
  enabled: true,
  pollIntervalMs: 1000,
  timeoutMs: 10_000,
  maxAttempts: 12,
  backoff: { baseMs: 10_000, maxMs: 3600_000 },
  concurrency: 8,
  allowInsecure: false,
  perTenant: 100,
};
