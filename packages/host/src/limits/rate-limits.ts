/**
 * Request rates per access token and per client address (issue 35), counted in fixed windows of
 * a minute and shared by every host through PostgreSQL, without a statement per request.
 *
 * Each host counts in memory with rate-limiter-flexible's RateLimiterMemory, which decides at
 * once and says how long until the window ends. rate-limiter-flexible's own PostgreSQL store
 * would cost every request a statement (and wants a `pg` pool, which neither postgres.js nor
 * PGlite is); instead, every FLUSH_MS a host adds what it counted since its last flush to the
 * shared counts (rate-counts.ts, one statement for all keys) and sets its memory to the totals
 * every host counted. So a key's limit holds across hosts up to what the other hosts counted
 * within the last flush interval, and the counts follow the database's clock.
 */
import { createHash } from "node:crypto";
import { type Database, rateLimited } from "@bizdata/core";
import type { MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { requestClientAddress } from "../observability/request-context.js";
import { addCounts, dropOldCounts } from "./rate-counts.js";

export interface RateLimitSettings {
  /** requests per minute per access token (RATE_LIMIT_PER_TOKEN); 0: no limit */
  readonly perToken: number;
  /** requests per minute per client address (RATE_LIMIT_PER_ADDRESS); 0: no limit */
  readonly perAddress: number;
}

export const WINDOW_SECONDS = 60;

/** milliseconds between a host's flushes: how far behind the other hosts' counts a host may be */
export const FLUSH_MS = 1000;

/** one limit: its memory, and what it counted since the last flush */
class CountedLimit {
  private readonly memory: RateLimiterMemory;
  /** points counted here since the last flush, by key */
  pending = new Map<string, number>();

  constructor(
    readonly name: "token" | "address",
    readonly limit: number,
    private readonly setting: string,
    /** what the shared counts know a key by */
    readonly sharedKey: (key: string) => string,
  ) {
    this.memory = new RateLimiterMemory({ points: limit, duration: WINDOW_SECONDS, keyPrefix: "" });
  }

  /** counts a request of `key`; over the limit, throws 429 RateLimited */
  async consume(key: string): Promise<void> {
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    try {
      await this.memory.consume(key);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      const seconds = Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
      // draft-ietf-httpapi-ratelimit-headers: the policy, and that nothing remains for `t` seconds
      throw rateLimited(
        `More than ${this.limit} requests a minute with this ${this.name} (${this.setting}); retry in ${seconds} s.`,
        {
          "Retry-After": String(seconds),
          "RateLimit-Policy": `"${this.name}";q=${this.limit};w=${WINDOW_SECONDS}`,
          RateLimit: `"${this.name}";r=0;t=${seconds}`,
        },
      );
    }
  }

  /** takes what is to flush, leaving nothing pending */
  take(): Map<string, number> {
    const taken = this.pending;
    this.pending = new Map();
    return taken;
  }

  /** gives back what a failed flush took, to go with the next one */
  giveBack(taken: Map<string, number>): void {
    for (const [key, points] of taken) this.pending.set(key, (this.pending.get(key) ?? 0) + points);
  }

  /** the memory holds what every host counted for `key`, and what this one counted since it flushed */
  learn(key: string, total: number, secondsLeft: number): void {
    void this.memory.set(key, total + (this.pending.get(key) ?? 0), Math.max(1, secondsLeft));
  }
}

/**
 * A token is known to the shared counts by its hash, made once per flush rather than per request
 * (2 µs each); in this host's memory the token itself is the key
 */
const tokenHash = (token: string) => `token:${createHash("sha256").update(token).digest("base64url")}`;
const addressKey = (address: string) => `address:${address}`;

export class RateLimits {
  private readonly limits: readonly CountedLimit[];
  private readonly token: CountedLimit | undefined;
  private readonly address: CountedLimit | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** the window the old counts were last dropped in */
  private droppedIn = -1;

  constructor(
    private readonly db: Database,
    settings: RateLimitSettings,
    private readonly failed: (err: unknown) => void = () => {},
  ) {
    if (settings.perToken > 0)
      this.token = new CountedLimit("token", settings.perToken, "RATE_LIMIT_PER_TOKEN", tokenHash);
    if (settings.perAddress > 0)
      this.address = new CountedLimit("address", settings.perAddress, "RATE_LIMIT_PER_ADDRESS", addressKey);
    this.limits = [this.token, this.address].filter((limit) => limit !== undefined);
    // a host that stops counting flushes no more: the timer keeps no process alive
    if (this.limits.length > 0) this.timer = setInterval(() => void this.flush(), FLUSH_MS).unref();
  }

  /** counts a request made with the access token `token` (shared as its hash); over the limit, 429 */
  byToken(token: string): Promise<void> | undefined {
    return this.token?.consume(token);
  }

  /** counts a request from `address`; over the limit, 429 */
  byAddress(address: string): Promise<void> | undefined {
    return this.address?.consume(address);
  }

  /**
   * Adds what this host counted since the last flush to the shared counts and takes the totals
   * back; a flush under way is waited for instead of starting another. A failed flush keeps its
   * counts for the next one and tells `failed`.
   */
  flush(): Promise<void> {
    this.flushing ??= this.flushNow().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** stops flushing (the host closes) */
  close(): void {
    clearInterval(this.timer);
  }

  private async flushNow(): Promise<void> {
    const taken = this.limits.map((limit) => ({ limit, counts: limit.take() }));
    /** each shared key's limit and key in this host's memory */
    const local = new Map<string, { limit: CountedLimit; key: string }>();
    const points: number[] = [];
    for (const { limit, counts } of taken)
      for (const [key, n] of counts) {
        local.set(limit.sharedKey(key), { limit, key });
        points.push(n);
      }
    if (local.size === 0) return;
    let totals: Awaited<ReturnType<typeof addCounts>>;
    try {
      totals = await addCounts(this.db, [...local.keys()], points, WINDOW_SECONDS);
    } catch (err) {
      for (const { limit, counts } of taken) limit.giveBack(counts);
      this.failed(err);
      return;
    }
    for (const { key, points: total, secondsLeft } of totals) {
      const counted = local.get(key);
      counted?.limit.learn(counted.key, total, secondsLeft);
    }
    // the rows of keys no longer counted, once a window (by this host's clock: only roughly)
    const window = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    if (window === this.droppedIn) return;
    this.droppedIn = window;
    await dropOldCounts(this.db, WINDOW_SECONDS).catch(this.failed);
  }
}

/**
 * Counts a request from its client address, ahead of sign-in and authentication: a client with
 * no valid token is limited too. A request made in-process has no address. (A `$batch` part or
 * an MCP tool call is a call within its request, not a request: it counts no more.)
 */
export const limitedByAddress =
  (limits: RateLimits): MiddlewareHandler =>
  async (c, next) => {
    const address = requestClientAddress(c);
    const counted = address === undefined ? undefined : limits.byAddress(address);
    if (counted !== undefined) await counted;
    await next();
  };

/** counts a request with its access token, after authentication */
export const limitedByToken =
  (limits: RateLimits): MiddlewareHandler<{ Variables: { accessToken: string } }> =>
  async (c, next) => {
    const counted = limits.byToken(c.get("accessToken"));
    if (counted !== undefined) await counted;
    await next();
  };
