/**
 * Inserts that wait (write-behind), within one transaction: records inserted through the
 * session's store are kept, and go to the database together — one statement per entity for every
 * record inserted since the last statement — just before the next statement of any other kind,
 * and when the transaction's work is done (`flush`). Every statement therefore still sees every
 * insert made before it, while the inserts of a changeset's parts, between which no statement has
 * to run, cost one statement per table instead of one per part and table.
 *
 * Waiting inserts are grouped per entity, the groups in the order their entities were first
 * inserted, so owners go before their items and a record before what is created to refer to it.
 * A record that refers to a waiting record of a group after its own (possible only where
 * references form a cycle) sends the waiting ones first, so a foreign key always finds its target.
 *
 * When the work is done (`finish`), the inserts still waiting go out with the transaction's COMMIT
 * where the driver can send them together (`Session.commitWith`): a create costs one round trip.
 *
 * The price: an insert that fails (a duplicate key) fails the statement that sent it, which may
 * be a later part's read or the end of the work. `failed` says that this happened, so whoever
 * needs to know which write caused it (a changeset) can run the work again with immediate writes.
 */
import type { ReferenceField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";
import type { Session, Statement } from "./database.js";
import { perEntity, persistedColumns } from "./naming.js";
import type { RecordStore, StoredRecord } from "./record-port.js";

export interface WriteBehind {
  /** the transaction's session, with its store's inserts waiting */
  readonly session: Session;
  /** sends the waiting inserts (and waits for those already sent) */
  flush(): Promise<void>;
  /**
   * The work is done: sends the waiting inserts as the transaction's last statements, with its
   * COMMIT right behind them where the session can (`commitWith`), else as `flush`
   */
  finish(): Promise<void>;
  /** whether a waiting insert failed when it was sent */
  readonly failed: boolean;
}

interface Group {
  readonly def: AnyEntity;
  readonly tenantId: string;
  readonly records: StoredRecord[];
}

const valueAt = (record: StoredRecord, path: readonly string[]): unknown =>
  path.length === 1 ? record[path[0]!] : (record[path[0]!] as StoredRecord | null | undefined)?.[path[1]!];

/** the reference columns of an entity, with the entity each points at (every insert looks at them) */
const referencesOf = perEntity((def: AnyEntity) =>
  persistedColumns(def).flatMap((c) =>
    c.field.kind === "reference" ? [{ path: c.path, target: (c.field as ReferenceField).target }] : [],
  ),
);

/** `session` with its store's inserts waiting until another statement runs or `flush` is called */
export function writeBehind(session: Session): WriteBehind {
  const inner = session.store;
  const groups: Group[] = [];
  /** entity name → Guid of a waiting record → its group's position */
  const waiting = new Map<string, Map<string, number>>();
  let sent: Promise<void> = Promise.resolve();
  let failed = false;

  const flush = (): Promise<void> => {
    if (groups.length === 0) return sent;
    const taken = groups.splice(0);
    waiting.clear();
    sent = sent.then(async () => {
      try {
        for (const group of taken) await inner.insert(session, group.def, group.tenantId, group.records);
      } catch (err) {
        failed = true;
        throw err;
      }
    });
    return sent;
  };

  const finish = async (): Promise<void> => {
    const insertStatement = inner.insertStatement;
    if (session.commitWith === undefined || insertStatement === undefined) return flush();
    await sent;
    const taken = groups.splice(0);
    waiting.clear();
    try {
      await session.commitWith(
        taken.map((group) => insertStatement(session, group.def, group.tenantId, group.records)),
      );
    } catch (err) {
      // the COMMIT itself may have failed, but which write is to blame is for a run with immediate writes to say
      if (taken.length > 0) failed = true;
      throw err;
    }
  };

  /** whether a record refers to a waiting record of a group after position `at` */
  const refersAhead = (def: AnyEntity, records: readonly StoredRecord[], at: number) =>
    referencesOf(def).some(({ path, target }) => {
      const positions = waiting.get(target);
      return (
        positions !== undefined &&
        records.some((r) => {
          const guid = valueAt(r, path);
          return typeof guid === "string" && (positions.get(guid) ?? -1) > at;
        })
      );
    });

  const insert: RecordStore["insert"] = async (_session, def, tenantId, records) => {
    if (records.length === 0) return;
    if (groups.length > 0 && groups[0]!.tenantId !== tenantId) await flush();
    let at = groups.findIndex((g) => g.def === def);
    if (at !== -1 && refersAhead(def, records, at)) {
      await flush();
      at = -1;
    }
    if (at === -1) at = groups.push({ def, tenantId, records: [] }) - 1;
    groups[at]!.records.push(...records);
    let positions = waiting.get(def.name);
    if (positions === undefined) {
      positions = new Map();
      waiting.set(def.name, positions);
    }
    for (const record of records) positions.set(String(record.Guid), at);
  };

  const store: RecordStore = {
    view: inner.view,
    defersSave: inner.defersSave,
    changeLog: inner.changeLog,
    load: async (s, ...rest) => {
      await flush();
      return inner.load(s, ...rest);
    },
    loadWhere: async (s, ...rest) => {
      await flush();
      return inner.loadWhere(s, ...rest);
    },
    insert,
    update: async (s, ...rest) => {
      await flush();
      return inner.update(s, ...rest);
    },
    remove: async (s, ...rest) => {
      await flush();
      return inner.remove(s, ...rest);
    },
    rebase: async (s, ...rest) => {
      await flush();
      return inner.rebase(s, ...rest);
    },
  };
  return {
    session: {
      query: async <R>(statement: Statement) => {
        await flush();
        return session.query<R>(statement);
      },
      store,
      ...(session.changes && { changes: session.changes }),
    },
    flush,
    finish,
    get failed() {
      return failed;
    },
  };
}

/** a session whose inserts do not wait, for work that must fail where it fails */
export const writeThrough = (session: Session): WriteBehind => ({
  session,
  flush: async () => {},
  finish: async () => {},
  failed: false,
});
