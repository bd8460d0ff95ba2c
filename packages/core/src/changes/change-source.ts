/**
 * Who makes the changes a transaction writes, as its change log rows record them: the user or
 * client and the request, chosen once where the request is received and carried by the session
 * (`Session.changes`) to the statements that write the rows (logged-writes.ts). With it comes the
 * model the written entities belong to, which knows the owner of an owned collection's items: an
 * item's row names its owner, so that a change of `SalesOrder.Details` is one of the order too.
 *
 * A write whose session carries none is logged all the same, without an author or an owner.
 */
import type { AnyEntity, Model } from "../model/model.js";
import { columnOf } from "../storage/naming.js";

export interface ChangeAuthor {
  /** the user or client that makes the changes (a principal's name) */
  readonly actor?: string | undefined;
  /** the request that makes them (X-Request-Id) */
  readonly requestId?: string | undefined;
}

export interface ChangeSource extends ChangeAuthor {
  /** the model of the entities written */
  readonly model: Model;
}

/** the changes of a request by `author` to records of `model` */
export const changeSource = (model: Model, author: ChangeAuthor = {}): ChangeSource => ({ model, ...author });

/** per model, each entity's owner column (null: not owned), asked of every write */
const owners = new WeakMap<Model, WeakMap<AnyEntity, string | null>>();

/** the column an owned entity's records keep their owner in (the collection's inverse), if `def` is owned */
export function ownerColumn(source: ChangeSource | undefined, def: AnyEntity): string | undefined {
  if (source === undefined) return undefined;
  let columns = owners.get(source.model);
  if (columns === undefined) {
    columns = new WeakMap();
    owners.set(source.model, columns);
  }
  let column = columns.get(def);
  if (column === undefined) {
    const owner = source.model.owner(def.name);
    column = (owner && columnOf(def, [owner.inverse])?.column) ?? null;
    columns.set(def, column);
  }
  return column ?? undefined;
}
