/**
 * How far each read replica has caught up with the primary, learnt from checks made every
 * interval (never per request): a check reads the primary's WAL position (`pg_current_wal_lsn()`)
 * and each replica's replayed position (`pg_last_wal_replay_lsn()`). A replica that has replayed
 * past the position the primary had when a check was sent holds every transaction acknowledged
 * before that moment: it is fresh as of then. That one fact bounds its lag and proves a client's
 * write is there, with no clock but the host's own: `now() - pg_last_xact_replay_timestamp()`
 * grows on an idle primary as if the replica lagged, and compares two servers' clocks.
 */

/**
 * What may be read from a replica: `up` (fresh within the bound), `lagging` (not fresh within it,
 * or not known to be yet), `down` (its last check or a read on it could not reach it), `not a
 * standby` (it is not in recovery: promoted, or not a replica at all, so its data need not be
 * the primary's).
 */
export type ReplicaState = "up" | "lagging" | "down" | "not a standby";

/** a WAL position as PostgreSQL writes it (`16/B374D848`), as a number that orders */
export function walPosition(lsn: string): bigint {
  const [high, low] = lsn.split("/");
  if (high === undefined || low === undefined || !/^[0-9A-F]+$/i.test(high) || !/^[0-9A-F]+$/i.test(low))
    throw new Error(`"${lsn}" is not a WAL position.`);
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

interface Replica {
  /** when the newest check of the primary it has replayed past was sent (host clock, ms) */
  freshAt: number | undefined;
  /** why it is down, until a check sent after that reaches it */
  down: { readonly reason: string; readonly at: number } | undefined;
  standby: boolean;
}

export class ReplicaFreshness {
  /** the primary's positions, oldest first, each with when its check was sent */
  private readonly primary: { readonly at: number; readonly position: bigint }[] = [];
  private readonly replicas: Replica[];

  /** `maxLag`: milliseconds a replica may be behind and still serve reads */
  constructor(
    count: number,
    private readonly maxLag: number,
  ) {
    this.replicas = Array.from({ length: count }, () => ({ freshAt: undefined, down: undefined, standby: true }));
  }

  /** the primary's position, read by a check sent `at` */
  primaryAt(at: number, position: bigint): void {
    this.primary.push({ at, position });
    // a replica fresh only as of an older check is past the bound whichever it has replayed
    while (this.primary.length > 1 && this.primary[0]!.at < at - this.maxLag) this.primary.shift();
  }

  /** replica `i`'s replayed position (undefined: it is not in recovery), as a check sent `at` read it */
  replayed(i: number, at: number, position: bigint | undefined): void {
    const replica = this.replicas[i]!;
    // a check that was on its way when a read found the replica gone does not bring it back
    if (replica.down !== undefined && replica.down.at >= at) return;
    replica.down = undefined;
    replica.standby = position !== undefined;
    if (position === undefined) {
      replica.freshAt = undefined;
      return;
    }
    for (let k = this.primary.length - 1; k >= 0; k--) {
      const check = this.primary[k]!;
      if (check.position <= position) {
        replica.freshAt = Math.max(replica.freshAt ?? check.at, check.at);
        return;
      }
    }
  }

  /** replica `i` could not be reached `at`: skipped until a check sent later reaches it */
  unreachable(i: number, at: number, reason: string): void {
    this.replicas[i]!.down = { reason, at };
  }

  state(i: number, now: number): ReplicaState {
    const replica = this.replicas[i]!;
    if (replica.down !== undefined) return "down";
    if (!replica.standby) return "not a standby";
    return replica.freshAt === undefined || now - replica.freshAt > this.maxLag ? "lagging" : "up";
  }

  /** at most how many milliseconds of the primary's transactions replica `i` may lack; undefined when unknown */
  lag(i: number, now: number): number | undefined {
    const { freshAt } = this.replicas[i]!;
    return freshAt === undefined ? undefined : Math.max(0, now - freshAt);
  }

  /**
   * Whether replica `i` may serve a read now for a client whose last write ended `wroteAt`: it
   * is up, and fresh as of a check sent after that write was acknowledged.
   */
  serves(i: number, now: number, wroteAt: number | undefined): boolean {
    if (this.state(i, now) !== "up") return false;
    return wroteAt === undefined || this.replicas[i]!.freshAt! > wroteAt;
  }

  /** why replica `i` is down, if it is */
  downReason(i: number): string | undefined {
    return this.replicas[i]!.down?.reason;
  }
}
