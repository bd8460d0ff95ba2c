/**
 * Resource subscriptions of a 2025 MCP session (`resources/subscribe`, `resources/unsubscribe`),
 * followed through the change log: an entity set's resource (`bizdata://model/{EntitySet}`) and
 * a records resource of that set (`bizdata://records/{EntitySet}/…`) are updated whenever a record
 * of the set changes, a record's resource (`bizdata://record/{EntitySet}/{key}`) when the record
 * or an item of one of its owned collections does. The session's follower wakes with the tenant's
 * feed (changes/change-feeds.ts), reads the changes of the subscribed sets from where it last
 * read, and sends `notifications/resources/updated` once per resource and read, on the session's
 * standing stream (GET): a session without one is sent nothing. Positions are the session's own,
 * in memory; a new session starts from when it subscribes.
 */
import {
  type ChangePosition,
  type ChangeRow,
  changeWatermark,
  type Database,
  inTenant,
  type Model,
  readChanges,
} from "@bizdata/core";
import type { ChangeFeeds } from "../changes/change-feeds.js";

/** what a subscribed resource follows: an entity set's records, or one record */
export interface Followed {
  readonly entity: string;
  /** the record's Guid, for a record's resource */
  readonly key?: string;
}

const PAGE = 200;

/**
 * The entity set of a resource one may subscribe to, and whether it is one record's: an entity
 * set's (not the model's nor `$metadata`), a record's, a records resource
 */
export function subscribable(uri: string): { entitySet: string; record: boolean } | undefined {
  const match = /^bizdata:\/\/(model|record|records)\/([^/$][^/]*)(\/.*)?$/.exec(uri);
  if (match === null) return undefined;
  const [, kind, set, rest] = match;
  if ((kind === "model") !== (rest === undefined)) return undefined;
  try {
    return { entitySet: decodeURIComponent(set!), record: kind === "record" };
  } catch {
    return undefined;
  }
}

export interface SubscriptionDeps {
  readonly db: Database;
  readonly model: Model;
  readonly feeds: ChangeFeeds;
  readonly tenantId: string;
  /** sends `notifications/resources/updated` for `uri` */
  readonly updated: (uri: string) => Promise<void>;
  /** a read of the log that failed: the subscriptions stay, and the next change reads again */
  readonly failed: (err: unknown) => void;
}

export class ResourceSubscriptions {
  readonly #followed = new Map<string, Followed>();
  #position: ChangePosition | undefined;
  #unwatch: (() => void) | undefined;
  #pending = false;
  #reading = false;

  constructor(private readonly deps: SubscriptionDeps) {}

  /** follows `uri` for `what` from now on: a change committed after the answer is notified */
  async subscribe(uri: string, what: Followed): Promise<void> {
    if (this.#position === undefined) {
      const { db, tenantId } = this.deps;
      const xid = await inTenant(db, tenantId, changeWatermark, { readOnly: true });
      this.#position ??= { xid, seq: 0 };
    }
    this.#followed.set(uri, what);
    this.#unwatch ??= this.deps.feeds.watch(this.deps.tenantId, () => this.#wake());
  }

  unsubscribe(uri: string): void {
    this.#followed.delete(uri);
    if (this.#followed.size === 0) this.close();
  }

  /** forgets every subscription (the session ends) */
  close(): void {
    this.#followed.clear();
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#position = undefined;
  }

  #wake(): void {
    this.#pending = true;
    if (!this.#reading) void this.#read();
  }

  /** the entities whose rows concern a subscription: the followed sets, and their owned items */
  #entities(): string[] {
    const followed = new Set([...this.#followed.values()].map((f) => f.entity));
    const items = [...this.deps.model.entities.keys()].filter((name) => {
      const owner = this.deps.model.owner(name)?.entity.name;
      return owner !== undefined && followed.has(owner);
    });
    return [...followed, ...items];
  }

  async #read(): Promise<void> {
    this.#reading = true;
    const { db, tenantId } = this.deps;
    try {
      while (this.#pending && this.#position !== undefined) {
        this.#pending = false;
        const entities = this.#entities();
        for (;;) {
          const from: ChangePosition | undefined = this.#position;
          if (from === undefined) return;
          const { rows }: { rows: readonly ChangeRow[] } = await inTenant(
            db,
            tenantId,
            (tx) => readChanges(tx, tenantId, { entities, from: from.xid, after: from, limit: PAGE }),
            { readOnly: true },
          );
          const last = rows.at(-1);
          if (last !== undefined && this.#position !== undefined) this.#position = { xid: last.xid, seq: last.seq };
          const touched = new Set<string>();
          for (const row of rows) {
            const owner = this.deps.model.owner(row.entity)?.entity.name;
            for (const [uri, what] of this.#followed) {
              const own = what.entity === row.entity && (what.key === undefined || what.key === row.key);
              const item = what.entity === owner && (what.key === undefined || what.key === row.owner);
              if (own || item) touched.add(uri);
            }
          }
          for (const uri of touched) await this.deps.updated(uri);
          if (rows.length < PAGE) break;
        }
      }
    } catch (err) {
      this.deps.failed(err);
    } finally {
      this.#reading = false;
    }
  }
}
