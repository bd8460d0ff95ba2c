/**
 * When a failed delivery is tried again: exponential backoff with jitter. The n-th failure waits
 * between half and all of `base · 2^(n-1)`, capped at `max` ("equal jitter"): the wait grows
 * as a receiver stays down, and the retries of many events that failed at once spread out
 * instead of arriving together when it comes back.
 */
export interface BackoffSettings {
  /** WEBHOOK_BACKOFF_BASE_MS: the wait after the first failure, at most */
  readonly baseMs: number;
  /** WEBHOOK_BACKOFF_MAX_MS: the longest wait */
  readonly maxMs: number;
}

/** milliseconds to wait after failure number `failures` (1 for the first); `random` in [0, 1) */
export function retryDelay(failures: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(failures - 1, 52));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
