/**
 * The one write port (architecture: "every write goes through one store that the request
 * chooses once"). A session carries a `RecordStore`: the base tables, or a workflow's staged
 * state. Every write path — CRUD, deep collection items, methods, virtual entities, business
 * logic, natural-key lookups — loads and writes through `session.store`, so none of them can
 * forget to stage, and none decides on its own whether it stages or saves.
 */
import type { AnyEntity } from "../model/model.js";
import type { Session, Statement } from "./database.js";
import type { StagedView } from "./staged-view.js";

export type StoredRecord = Record<string, unknown>;

export interface RecordStore {
  /** what reads through this store see: undefined for the base tables, else the workflow's overlay */
  readonly view: StagedView | undefined;
  /**
   * true when writes are staged: save logic and a virtual entity's `save` wait for the commit,
   * which runs them on the staged state as it will be stored
   */
  readonly defersSave: boolean;
  /**
   * Whether its writes append their changes to the change log (change-table.ts), in the statement
   * that writes them: the base tables' do unless the log is switched off; staged writes never do
   * (what a workflow stages is logged when it commits)
   */
  readonly changeLog: boolean;
  /** records by Guid (missing ones are absent); `forUpdate` locks base rows */
  load(
    session: Session,
    def: AnyEntity,
    tenantId: string,
    guids: readonly string[],
    options?: { readonly forUpdate?: boolean },
  ): Promise<StoredRecord[]>;
  /** records whose `column` holds one of `values` (the items of owned collections, by owner) */
  loadWhere(
    session: Session,
    def: AnyEntity,
    tenantId: string,
    column: string,
    values: readonly string[],
  ): Promise<StoredRecord[]>;
  /** new records, each with its Guid */
  insert(session: Session, def: AnyEntity, tenantId: string, records: readonly StoredRecord[]): Promise<void>;
  /**
   * The one statement `insert` sends for these records, where it is one: what lets a
   * transaction's last inserts go out with its COMMIT (write-behind.ts)
   */
  readonly insertStatement?: (
    session: Session,
    def: AnyEntity,
    tenantId: string,
    records: readonly StoredRecord[],
  ) => Statement;
  /** an existing record: `record` is its whole state after the change, `changes` what changed */
  update(
    session: Session,
    def: AnyEntity,
    tenantId: string,
    record: StoredRecord,
    changes: StoredRecord,
  ): Promise<void>;
  /**
   * Makes the main record as it is now the base of a staged change (staged-store.ts), before a
   * change a client made knowing the main data; nothing for the base tables, which are the main data
   */
  rebase(session: Session, def: AnyEntity, tenantId: string, guid: string): Promise<void>;
  /** records by Guid with their owned collection items; returns the Guids that existed */
  remove(session: Session, def: AnyEntity, tenantId: string, guids: readonly string[]): Promise<string[]>;
}

/** `session` writing through `store` (a workflow step's session, or the base one at commit), by the same author */
export const withStore = (session: Session, store: RecordStore): Session => ({
  query: session.query,
  store,
  ...(session.changes && { changes: session.changes }),
});
