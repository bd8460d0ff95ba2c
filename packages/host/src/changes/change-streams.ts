/**
 * The change streams a host has open: the feeds they follow (one per tenant), how many each user
 * and tenant holds (CHANGE_STREAM_PER_USER, CHANGE_STREAM_PER_TENANT: past them `429
 * TooManyStreams`, counted per host like the tenant share, since a stream holds a connection
 * here), and the ends to call when the host shuts down, so that draining it waits for no stream:
 * each ends cleanly and its client resumes elsewhere with its last event id. Other long-lived
 * streams (an MCP session's) register their ends here too.
 */
import { type Database, ServiceError } from "@bizdata/core";
import type { ChangeStreamSettings } from "../config.js";
import { ChangeFeeds } from "./change-feeds.js";

/** seconds a refused client is told to wait: a place frees when one of its streams ends */
const RETRY_AFTER = 5;

const tooMany = (message: string) =>
  new ServiceError("TooManyStreams", message).withHeaders({ "Retry-After": String(RETRY_AFTER) });

export class ChangeStreams {
  readonly feeds: ChangeFeeds;
  readonly #ends = new Set<() => void | Promise<void>>();
  readonly #perUser = new Map<string, number>();
  readonly #perTenant = new Map<string, number>();
  #closed = false;

  constructor(
    db: Database,
    readonly settings: ChangeStreamSettings,
    failed: (err: unknown) => void = () => {},
  ) {
    this.feeds = new ChangeFeeds(db, settings.pollMs, failed);
  }

  /**
   * Takes a place for a stream of `user` of `tenantId` (429 when they hold their share), whose
   * `end` the host calls when it shuts down; returns the function that gives the place back.
   */
  open(tenantId: string, user: string, end: () => void): () => void {
    // a request that came on a connection still open while the host drains: go to another host
    if (this.#closed)
      throw new ServiceError("ServiceUnavailable", "This host is shutting down: reconnect.").withHeaders({
        "Retry-After": "1",
      });
    const userKey = JSON.stringify([tenantId, user]);
    const { perUser, perTenant } = this.settings;
    if ((this.#perUser.get(userKey) ?? 0) >= perUser)
      throw tooMany(`You have ${perUser} change streams open (CHANGE_STREAM_PER_USER): close one, or retry later.`);
    if ((this.#perTenant.get(tenantId) ?? 0) >= perTenant)
      throw tooMany(`This tenant has ${perTenant} change streams open (CHANGE_STREAM_PER_TENANT); retry later.`);
    count(this.#perUser, userKey, 1);
    count(this.#perTenant, tenantId, 1);
    this.#ends.add(end);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#ends.delete(end);
      count(this.#perUser, userKey, -1);
      count(this.#perTenant, tenantId, -1);
    };
  }

  /** registers what ends another long-lived stream (an MCP session's) at shutdown; returns its removal */
  onClose(end: () => void | Promise<void>): () => void {
    this.#ends.add(end);
    return () => this.#ends.delete(end);
  }

  /** ends every stream and stops the feeds (the host shuts down) */
  async close(): Promise<void> {
    this.#closed = true;
    const ends = [...this.#ends];
    this.#ends.clear();
    await Promise.all(ends.map(async (end) => end()));
    this.feeds.close();
  }
}

function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
