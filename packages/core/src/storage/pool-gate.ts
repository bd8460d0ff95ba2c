/**
 * The pool's waiting room, with a deadline. postgres.js queues a query that finds no free
 * connection for as long as it takes: while the database is unreachable or every connection is
 * held, a request would wait without end. Here at most `size` operations are with the driver at
 * once and the rest wait in order, each at most `timeoutMs`; one that times out fails with
 * `POOL_TIMEOUT` before the driver ever saw it, so nothing of it is applied. What it holds and
 * keeps waiting is the driver's pool usage (pool-usage.ts), counted without a wrapper of its own.
 * The host's tenant share (host: limits/tenant-share.ts) is a gate per tenant whose waiting room
 * is bounded too, and whose refusals are the tenant's 429.
 */
import type { PoolStats } from "./pool-usage.js";

/** the error of an operation that found no free connection in time (a transient database error) */
export const poolTimeout = (timeoutMs: number): Error =>
  Object.assign(new Error(`No database connection became free within ${timeoutMs} ms.`), { code: "POOL_TIMEOUT" });

/** how a gate refuses an operation; by default it lets any number wait and times out with POOL_TIMEOUT */
export interface GateRefusals {
  /** operations that may wait at once: one more fails at once with `full()` */
  readonly queue: number;
  readonly full: () => Error;
  /** the error of an operation that waited `timeoutMs` */
  readonly timedOut: () => Error;
}

export class PoolGate {
  private running = 0;
  /** insertion-ordered, so the first waiter is served first; a waiter that times out leaves */
  private readonly waiting = new Set<() => void>();
  private readonly refusals: GateRefusals;

  constructor(
    readonly size: number,
    readonly timeoutMs: number,
    refusals?: GateRefusals,
  ) {
    this.refusals = refusals ?? {
      queue: Number.POSITIVE_INFINITY,
      full: () => poolTimeout(timeoutMs),
      timedOut: () => poolTimeout(timeoutMs),
    };
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.running < this.size) this.running++;
    else if (this.waiting.size >= this.refusals.queue) throw this.refusals.full();
    else await this.turn();
    try {
      return await operation();
    } finally {
      this.release();
    }
  }

  /** operations with the driver now and operations waiting for a place */
  stats(): PoolStats {
    return { size: this.size, busy: this.running, waiting: this.waiting.size };
  }

  /** resolves once a finishing operation hands its place over */
  private turn(): Promise<void> {
    return new Promise((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(admit);
        reject(this.refusals.timedOut());
      }, this.timeoutMs);
      this.waiting.add(admit);
    });
  }

  private release(): void {
    const next = this.waiting.values().next();
    if (next.done) {
      this.running--;
      return;
    }
    this.waiting.delete(next.value);
    next.value();
  }
}
