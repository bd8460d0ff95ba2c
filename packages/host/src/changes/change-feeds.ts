/**
 * One follower of the change log per tenant and host, shared by every stream of that tenant the
 * host serves: every CHANGE_STREAM_POLL_INTERVAL it asks whether transactions that became final
 * since its last look wrote rows for the tenant (core's changedSince, one index probe), and only
 * then wakes the streams, each of which reads its own changes from its own position. So a host
 * with many idle streams costs the database one small query per tenant and interval, not one per
 * stream; a feed lives while its tenant has a stream.
 *
 * Why no change is missed: a row becomes readable when the watermark passes its transaction, and
 * exactly one look sees that happen (the first whose watermark is above it; its watermark is above
 * what any earlier read saw, so that look comes after a stream's read that did not have the row).
 * A stream that is woken while it reads reads once more. The first look of a feed wakes everyone.
 */
import { changedSince, type Database, inTenant } from "@bizdata/core";

interface Feed {
  readonly wakes: Set<() => void>;
  /** the watermark of the last look; none before the first */
  seen: string | undefined;
  looking: boolean;
  readonly timer: NodeJS.Timeout;
}

export class ChangeFeeds {
  readonly #feeds = new Map<string, Feed>();

  constructor(
    private readonly db: Database,
    private readonly intervalMs: number,
    /** a look that failed (the database away): told here, tried again at the next interval */
    private readonly failed: (err: unknown) => void = () => {},
  ) {}

  /** calls `wake` whenever `tenantId`'s log may have rows it has not read; returns the function that stops it */
  watch(tenantId: string, wake: () => void): () => void {
    let feed = this.#feeds.get(tenantId);
    if (feed === undefined) {
      const timer = setInterval(() => void this.#look(tenantId), this.intervalMs).unref();
      feed = { wakes: new Set(), seen: undefined, looking: false, timer };
      this.#feeds.set(tenantId, feed);
    }
    const own = () => wake();
    feed.wakes.add(own);
    return () => {
      const current = this.#feeds.get(tenantId);
      if (current === undefined || !current.wakes.delete(own) || current.wakes.size > 0) return;
      clearInterval(current.timer);
      this.#feeds.delete(tenantId);
    };
  }

  /** the tenants followed now */
  get tenants(): number {
    return this.#feeds.size;
  }

  /** stops every feed (the host closes) */
  close(): void {
    for (const feed of this.#feeds.values()) clearInterval(feed.timer);
    this.#feeds.clear();
  }

  async #look(tenantId: string): Promise<void> {
    const feed = this.#feeds.get(tenantId);
    if (feed === undefined || feed.looking) return;
    feed.looking = true;
    try {
      const since = feed.seen;
      // the first look has no watermark to start from: it wakes every stream whatever it finds
      const { to, changed } = await inTenant(this.db, tenantId, (tx) => changedSince(tx, tenantId, since ?? "0"), {
        readOnly: true,
      });
      feed.seen = to;
      if (changed || since === undefined) for (const wake of feed.wakes) wake();
    } catch (err) {
      this.failed(err);
    } finally {
      feed.looking = false;
    }
  }
}
