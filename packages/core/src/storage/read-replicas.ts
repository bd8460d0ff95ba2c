/**
 * Read scale-out over streaming replicas (`DATABASE_READ_URL`): a Database that sends a tenant's
 * one-statement reads (`transaction(fn, { tenant, readOnly: true, oneStatement: true })`, what an
 * entity GET is) to a replica, and everything else to the primary: writes, workflow steps (their
 * own read-write transactions), commits, reads of several statements, the host's own tables. The
 * drivers stay as they are: each replica is a Database of its own.
 *
 * Staleness rule (read your writes): a client's read goes to a replica only once that replica
 * is known to have replayed a WAL position the primary had after the client's last write ended
 * (replica-freshness.ts). Until then, typically one or two check intervals after a write, the
 * client reads from the primary; so does every read of a request after a write in it. Other
 * clients may read data up to the lag bound old. The host keeps each client's last write in
 * memory, for one lag bound: a client whose next request reaches another host is not covered.
 *
 * A replica is skipped while it lags beyond the bound, is down, or is not a standby; a read that
 * finds it unreachable (or cancelled by a conflict with recovery, or without a free connection)
 * is served by the primary instead, and nothing fails for it.
 */
import type { Database, Session, Statement, TransactionOptions } from "./database.js";
import type { PoolStats } from "./pool-usage.js";
import { ReplicaFreshness, type ReplicaState, walPosition } from "./replica-freshness.js";
import { databaseErrorCode, isUnreachableDatabaseError } from "./transient-errors.js";

export interface ReplicaSettings {
  /** milliseconds a replica may be behind the primary and still serve reads */
  readonly maxLag: number;
  /** milliseconds between two checks of the replicas' positions */
  readonly checkInterval: number;
}

export const defaultReplicaSettings: ReplicaSettings = { maxLag: 5_000, checkInterval: 1_000 };

/** what the host's health and metrics tell of each pool */
export interface PoolReport {
  /** `primary`, `replica1`, `replica2`, … (in the order of DATABASE_READ_URL) */
  readonly name: string;
  readonly stats: PoolStats;
  /** one-statement tenant reads this pool answered */
  readonly reads: number;
  /**
   * for a replica: whether reads go to it, at most how far behind it is (undefined: not known),
   * and how many reads sent to it the primary answered instead (it failed them: gone, a conflict
   * with recovery, no free connection)
   */
  readonly replica?: {
    readonly state: ReplicaState;
    readonly lagSeconds: number | undefined;
    readonly fallbacks: number;
  };
}

export interface ReadRouting {
  /**
   * The database as one client's request sees it: its reads follow what that client wrote
   * (the staleness rule above). `client` names the caller (tenant and user), asked when the
   * request's work runs; undefined for an anonymous one.
   */
  forClient(client: () => string | undefined): Database;
  pools(): readonly PoolReport[];
  /** checks the replicas now, as the timer does every check interval */
  check(): Promise<void>;
}

const PRIMARY_POSITION = { sql: "SELECT pg_current_wal_lsn()::text AS position", params: [] };
const REPLAYED_POSITION = {
  sql: "SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS position",
  params: [],
};

/** what a read that failed on a replica may be retried on the primary for: none of it is the read's fault */
const elsewhere = (error: unknown): boolean =>
  // 40001: a standby cancels a statement that conflicts with replaying the primary's changes
  isUnreachableDatabaseError(error) || ["40001", "53300", "POOL_TIMEOUT"].includes(databaseErrorCode(error) ?? "");

const routable = (options: TransactionOptions | undefined): boolean =>
  options?.tenant !== undefined && options.readOnly === true && options.oneStatement === true;

/**
 * `primary` with its one-statement tenant reads spread over `replicas` while they are fresh,
 * checked every `settings.checkInterval` from now on (until `close`).
 *
 * @example
 * const db = routeReads(await openPostgres(url), [await openPostgres(readUrl)], defaultReplicaSettings);
 */
export function routeReads(
  primary: Database,
  replicas: readonly Database[],
  settings: ReplicaSettings,
  now: () => number = () => performance.now(),
): Database & { readonly routing: ReadRouting } {
  const freshness = new ReplicaFreshness(replicas.length, settings.maxLag);
  const reads = new Array<number>(replicas.length + 1).fill(0);
  const fallbacks = new Array<number>(replicas.length).fill(0);
  /** when each client's last write ended, for as long as it can keep a replica from serving it */
  const writes = new Map<string, number>();
  let next = 0;

  let primaryCheck: Promise<void> | undefined;
  const replicaChecks = new Map<number, Promise<void>>();
  const checkPrimary = async () => {
    const at = now();
    try {
      const [row] = await primary.query<{ position: string }>(PRIMARY_POSITION);
      freshness.primaryAt(at, walPosition(row!.position));
    } catch {
      // no position this round: the replicas age until the primary answers again
    }
    for (const [client, wroteAt] of writes) if (wroteAt < at - settings.maxLag) writes.delete(client);
  };
  const checkReplica = async (i: number) => {
    const at = now();
    try {
      const [row] = await replicas[i]!.query<{ standby: boolean; position: string | null }>(REPLAYED_POSITION);
      freshness.replayed(i, at, row!.standby && row!.position !== null ? walPosition(row!.position) : undefined);
    } catch (error) {
      freshness.unreachable(i, at, String((error as Error).message ?? error));
    }
  };
  /**
   * One check: the primary's position, then each replica's. A check still on its way is not
   * sent again, so a replica that does not answer holds up neither the others nor the primary's.
   */
  const check = async () => {
    primaryCheck ??= checkPrimary().finally(() => {
      primaryCheck = undefined;
    });
    await primaryCheck;
    await Promise.all(
      replicas.map((_, i) => {
        let pending = replicaChecks.get(i);
        if (pending === undefined) {
          pending = checkReplica(i).finally(() => replicaChecks.delete(i));
          replicaChecks.set(i, pending);
        }
        return pending;
      }),
    );
  };
  void check();
  const timer = setInterval(() => void check(), settings.checkInterval);
  timer.unref?.();

  /** the replica to serve a read of `client` on, round robin among those that may; undefined: the primary */
  const replicaFor = (client: string | undefined): number | undefined => {
    const at = now();
    const wroteAt = client === undefined ? undefined : writes.get(client);
    for (let k = 0; k < replicas.length; k++) {
      const i = (next + k) % replicas.length;
      if (freshness.serves(i, at, wroteAt)) {
        next = i + 1;
        return i;
      }
    }
    return undefined;
  };

  const onPrimary = async <T>(fn: (tx: Session) => Promise<T>, options: TransactionOptions | undefined) => {
    const result = await primary.transaction(fn, options);
    reads[0]!++;
    return result;
  };

  /** a read on replica `i`, or on the primary when the replica cannot serve it */
  async function read<T>(i: number | undefined, fn: (tx: Session) => Promise<T>, options: TransactionOptions) {
    if (i === undefined) return onPrimary(fn, options);
    let started = false;
    let failed: unknown;
    try {
      const result = await replicas[i]!.transaction((tx) => {
        started = true;
        return fn({
          query: <R>(statement: Statement) =>
            tx.query<R>(statement).catch((error: unknown) => {
              failed = error;
              throw error;
            }),
          store: tx.store,
        });
      }, options);
      reads[i + 1]!++;
      return result;
    } catch (error) {
      // once the work has run, only its statement's failure says the read did nothing but fail there
      const cause = started ? failed : error;
      if (cause === undefined || !elsewhere(cause)) throw error;
      if (isUnreachableDatabaseError(cause)) freshness.unreachable(i, now(), String((cause as Error).message));
      fallbacks[i]!++;
      return onPrimary(fn, options);
    }
  }

  /** work on the primary that may write: the client's reads wait for a replica that has it */
  async function write<T>(work: () => Promise<T>, client: () => string | undefined): Promise<T> {
    try {
      return await work();
    } finally {
      // a failed write too: a lost COMMIT may have committed
      const name = client();
      if (name !== undefined) writes.set(name, now());
    }
  }

  const routing: ReadRouting = {
    forClient(client) {
      let wrote = false;
      return {
        driver: primary.driver,
        store: primary.store,
        query: (statement) => {
          wrote = true;
          return write(() => primary.query(statement), client);
        },
        transaction: (fn, options) => {
          if (routable(options) && !wrote) return read(replicaFor(client()), fn, options!);
          if (options?.readOnly) return primary.transaction(fn, options);
          wrote = true;
          return write(() => primary.transaction(fn, options), client);
        },
        close: () => routed.close(),
        stats: () => primary.stats(),
      };
    },
    pools() {
      const at = now();
      return [
        { name: "primary", stats: primary.stats(), reads: reads[0]! },
        ...replicas.map((replica, i) => {
          const lag = freshness.lag(i, at);
          return {
            name: `replica${i + 1}`,
            stats: replica.stats(),
            reads: reads[i + 1]!,
            replica: {
              state: freshness.state(i, at),
              lagSeconds: lag === undefined ? undefined : lag / 1000,
              fallbacks: fallbacks[i]!,
            },
          };
        }),
      ];
    },
    check,
  };

  const routed: Database & { readonly routing: ReadRouting } = {
    driver: primary.driver,
    store: primary.store,
    query: (statement) => primary.query(statement),
    transaction: (fn, options) =>
      routable(options) ? read(replicaFor(undefined), fn, options!) : primary.transaction(fn, options),
    async close() {
      clearInterval(timer);
      await Promise.allSettled([primaryCheck, ...replicaChecks.values()]);
      await Promise.all([primary, ...replicas].map((db) => db.close()));
    },
    stats: () => primary.stats(),
    routing,
  };
  return routed;
}
