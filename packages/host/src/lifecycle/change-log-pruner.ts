/**
 * The change log's retention, kept in the background (CHANGE_LOG_RETENTION): every
 * CHANGE_LOG_PRUNE_INTERVAL a host deletes the changes past it (pruneChanges), once soon after it
 * starts and then on a timer that keeps no process alive. Every host of a database prunes; one
 * at a time deletes, the others find the lock taken. A failed prune (the database away) is told
 * to `failed` and tried again at the next tick; a prune still running is not started twice.
 */
import { type Database, pruneChanges } from "@bizdata/core";
import type { ChangeLogSettings } from "../config.js";

export class ChangeLogPruner {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly first: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: ChangeLogSettings,
    private readonly failed: (err: unknown) => void = () => {},
  ) {
    if (!settings.enabled) return;
    this.timer = setInterval(() => void this.prune(), settings.pruneInterval * 1000).unref();
    // the first soon, not an interval after start: a host that restarts often still prunes
    this.first = setTimeout(() => void this.prune(), 1000).unref();
  }

  /** deletes what is past the retention now; resolves with how many changes went (0 after a failure) */
  prune(): Promise<number> {
    this.running ??= pruneChanges(this.db, this.settings.retention)
      .catch((err: unknown) => {
        this.failed(err);
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** stops pruning and waits for a prune under way (the host closes) */
  async close(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }
}
