/**
 * Delivering webhook events in the background, by every host of a database (WEBHOOKS=on): every
 * WEBHOOK_POLL_INTERVAL_MS a host claims the due subscriptions it has room for (at most
 * WEBHOOK_CONCURRENCY at once, one attempt in flight each) and works through each one's events
 * in log order until it has none due (webhook-queue.ts says how hosts share the work). An attempt
 * is a signed POST (webhook-post.ts) that a 2xx answers; a failure is tried again after a backoff
 * (retry-backoff.ts) up to WEBHOOK_MAX_ATTEMPTS, then dead-lettered. After a burst of events a
 * subscription is given back, so that a busy one does not keep a host from the others.
 *
 * The timers keep no process alive. `close` (a host that stops) claims nothing more, lets the
 * attempts in flight end (each within its timeout), records them and gives the subscriptions up.
 * A failure of the database is told to `failed` and the work tried again at the next poll.
 */
import { randomUUID } from "node:crypto";
import type { Database } from "@bizdata/core";
import { retryDelay } from "./retry-backoff.js";
import { postEvent } from "./webhook-post.js";
import { type Claim, claimWebhooks, nextEvent, recordAttempt, releaseWebhook } from "./webhook-queue.js";
import type { WebhookSettings } from "./webhook-settings.js";
import { signatureHeaders } from "./webhook-signature.js";

/** steps (events sent, pages of changes passed over) of one claim before its subscription is given back for any host to claim again */
const BURST = 100;

/**
 * How much longer than an attempt's timeout a lease lasts: what is left for the statements around
 * the attempt and for a host's stalls, before another host may take the subscription over
 */
const LEASE_MARGIN_MS = 30_000;

export class WebhookDeliverer {
  /** this host's name in the leases it holds */
  readonly holder = randomUUID();
  private readonly working = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: Database,
    private readonly settings: WebhookSettings,
    private readonly failed: (err: unknown) => void = () => {},
  ) {
    if (settings.enabled) this.schedule(0);
  }

  private get leaseMs() {
    return this.settings.timeoutMs + LEASE_MARGIN_MS;
  }

  private schedule(ms: number) {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.poll(), ms).unref();
  }

  /** claims what there is room for now and starts on it; resolves once claimed */
  private poll(): Promise<void> {
    this.polling ??= this.claim()
      .catch((err: unknown) => this.failed(err))
      .finally(() => {
        this.polling = undefined;
        clearTimeout(this.timer);
        this.schedule(this.settings.pollIntervalMs);
      });
    return this.polling;
  }

  private async claim(): Promise<void> {
    const room = this.settings.concurrency - this.working.size;
    if (this.closed || room <= 0) return;
    const claims = await claimWebhooks(this.db, this.holder, room, this.leaseMs);
    for (const claim of claims) {
      const work: Promise<void> = this.work(claim)
        .catch((err: unknown) => {
          this.failed(err);
          // for any host to take up again at once, rather than when the lease runs out
          return releaseWebhook(this.db, claim, this.holder).catch(() => {});
        })
        .finally(() => {
          this.working.delete(work);
          // room again: a subscription with a backlog need not wait for the next poll
          if (claims.length === room) void this.poll();
        });
      this.working.add(work);
    }
  }

  /** a claimed subscription's events, one at a time, until none is due, a burst is done or the host stops */
  private async work(claim: Claim): Promise<void> {
    for (let steps = 0; ; steps++) {
      if (this.closed || steps === BURST) return releaseWebhook(this.db, claim, this.holder);
      const step = await nextEvent(this.db, claim, this.holder, this.leaseMs, this.settings.pollIntervalMs);
      if (step.kind === "more") continue;
      if (step.kind !== "send") return;
      const { event } = step;
      const timestamp = Math.floor(Date.now() / 1000);
      const outcome = await postEvent(
        event.url,
        signatureHeaders(event.secret, event.id, timestamp, event.body),
        event.body,
        {
          timeoutMs: this.settings.timeoutMs,
          allowInsecure: this.settings.allowInsecure,
        },
      );
      const failures = event.attempts + 1;
      await recordAttempt(
        this.db,
        claim,
        this.holder,
        event.id,
        outcome.ok
          ? outcome
          : {
              ...outcome,
              retryInMs: failures < this.settings.maxAttempts ? retryDelay(failures, this.settings.backoff) : undefined,
            },
      );
    }
  }

  /** stops claiming, waits for the attempts in flight and gives their subscriptions up */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.all(this.working);
  }
}
