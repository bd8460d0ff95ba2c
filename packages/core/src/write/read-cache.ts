/**
 * What one unit of work (a request, a `$batch` changeset, a workflow's commit, a chunk of an
 * import) has read, so that nothing is read twice: records by entity and Guid, and the
 * natural-key lookups that found them. Natural-key resolution fills it (a lookup loads the whole
 * records it finds), hooks' `read` reads through it, and a hook's declared `reads` load the
 * records of a whole set of records into it at once. The writes of the unit forget what was read
 * of the entity they wrote, so a later read sees them.
 *
 * Cached records are frozen: one hook's change to a record it read would otherwise show in what
 * every later hook of the unit reads.
 */
import type { AnyEntity } from "../model/model.js";
import type { Session } from "../storage/database.js";
import type { StoredRecord } from "../storage/record-port.js";

/** natural-key lookups of one target entity */
export interface KeyLookups {
  /** Guids known to exist */
  readonly guids: Set<string>;
  /** natural-key value → Guids of the records holding it */
  readonly byKey: Map<string, string[]>;
  /** values already looked up (as Guid and as key), found or not */
  readonly asked: Set<string>;
}

const freeze = (record: StoredRecord): StoredRecord => {
  for (const value of Object.values(record)) if (value !== null && typeof value === "object") Object.freeze(value);
  return Object.freeze(record);
};

export class ReadCache {
  private readonly records = new Map<AnyEntity, Map<string, StoredRecord | null>>();
  private readonly lookups = new Map<AnyEntity, KeyLookups>();

  /** a record read before (null: known not to exist); undefined when it was not read */
  record(def: AnyEntity, guid: string): StoredRecord | null | undefined {
    return this.records.get(def)?.get(guid.toLowerCase());
  }

  /** remembers records that were read, and Guids that were asked for and found nothing */
  remember(def: AnyEntity, found: readonly StoredRecord[], missing: readonly string[] = []): void {
    let known = this.records.get(def);
    if (known === undefined) {
      known = new Map();
      this.records.set(def, known);
    }
    for (const guid of missing) known.set(guid.toLowerCase(), null);
    for (const record of found) known.set(String(record.Guid), freeze(record));
  }

  /** the natural-key lookups made of `def` so far */
  keys(def: AnyEntity): KeyLookups {
    let known = this.lookups.get(def);
    if (known === undefined) {
      known = { guids: new Set(), byKey: new Map(), asked: new Set() };
      this.lookups.set(def, known);
    }
    return known;
  }

  /** forgets everything read of `def`: the unit just wrote records of it */
  forget(def: AnyEntity): void {
    this.records.delete(def);
    this.lookups.delete(def);
  }

  /** reads the records of `guids` not read yet, in one statement through the session's store */
  async load(session: Session, def: AnyEntity, tenantId: string, guids: Iterable<string>): Promise<void> {
    const known = this.records.get(def);
    const missing = new Set<string>();
    for (const guid of guids) {
      const lower = guid.toLowerCase();
      if (!known?.has(lower)) missing.add(lower);
    }
    if (missing.size === 0) return;
    const found = await session.store.load(session, def, tenantId, [...missing]);
    for (const record of found) missing.delete(String(record.Guid));
    this.remember(def, found, [...missing]);
  }

  /** one record by Guid, read once per unit (null when there is none) */
  async read(session: Session, def: AnyEntity, tenantId: string, guid: string): Promise<StoredRecord | null> {
    // a hook reads per record, a unit's records mostly what it read already: nothing made for those
    const cached = this.record(def, guid);
    if (cached !== undefined) return cached;
    await this.load(session, def, tenantId, [guid]);
    return this.record(def, guid) ?? null;
  }
}
