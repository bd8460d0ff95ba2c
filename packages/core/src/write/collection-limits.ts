/**
 * How many items an owned collection may hold (issue: budgets). An order with 100,000 lines was
 * accepted in one POST, held other tenants' reads for seconds while it was stored, and was then
 * answered whole to every reader that expanded it; a collection declares its own bound
 * (`collection(Line, { inverse, maxItems })`), the others take the host's (`WriteLimits`).
 */
import { ServiceError } from "../errors.js";
import type { CollectionField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { columnOf } from "../storage/naming.js";
import { collectionsOf } from "../storage/record-rows.js";
import type { Body } from "./record-tree.js";

export interface WriteLimits {
  /** items of an owned collection that declares no `maxItems` of its own */
  readonly maxCollectionItems: number;
}

export const defaultWriteLimits: WriteLimits = Object.freeze({ maxCollectionItems: 1000 });

/** the most items `field` may hold */
const limitOf = (field: CollectionField, limits: WriteLimits) => field.maxItems ?? limits.maxCollectionItems;

/**
 * Throws 400 CollectionTooLarge, naming the owner's collection by its address, when one more
 * item in the collection `name` of the record `guid` of `owner` would leave it over its bound
 * with `count` items: what an item written on its own is told, where a write of its owner names
 * the collection alone.
 */
export function checkRoomFor(owner: AnyEntity, guid: string, name: string, count: number, limits: WriteLimits): void {
  const field = owner.fields[name] as CollectionField;
  const limit = limitOf(field, limits);
  if (count > limit) throw tooLarge(`${owner.name}(${guid})/${name}`, limit, count);
}

/**
 * Throws 400 CollectionTooLarge when a collection of `record` (or of one of its items, at any
 * depth) holds more items than its bound. Checked on a client's body before anything is looked
 * up (each item of it becomes an item of the record, so a body over the bound is a record over
 * it) and on the merged record before business logic (items already stored count too).
 */
export function checkCollectionSizes(def: AnyEntity, record: Body, limits: WriteLimits, path = ""): void {
  for (const { name, field } of collectionsOf(def)) {
    const items = record[name];
    if (!Array.isArray(items)) continue;
    const limit = limitOf(field, limits);
    if (items.length > limit) throw tooLarge(`${path}${name}`, limit, items.length);
    items.forEach((item, i) => {
      if (item !== null && typeof item === "object") {
        checkCollectionSizes(field.target, item as Body, limits, `${path}${name}[${i}].`);
      }
    });
  }
}

const tooLarge = (collection: string, limit: number, count: number) =>
  new ServiceError(
    "CollectionTooLarge",
    `${collection} may hold at most ${limit} items; this write would leave it with ${count}.`,
    collection,
  );

/** an owned collection whose items are records of some entity, with the entity that owns it */
export interface OwningCollection {
  readonly owner: AnyEntity;
  readonly name: string;
  readonly field: CollectionField;
}

const owning = new WeakMap<Model, ReadonlyMap<AnyEntity, readonly OwningCollection[]>>();

/** the collections whose items are records of `def` (none for most entities), found once per model */
export function owningCollections(model: Model, def: AnyEntity): readonly OwningCollection[] {
  let byItem = owning.get(model);
  if (byItem === undefined) {
    const found = new Map<AnyEntity, OwningCollection[]>();
    for (const owner of model.entities.values()) {
      for (const { name, field } of collectionsOf(owner)) {
        found.set(field.target, [...(found.get(field.target) ?? []), { owner, name, field }]);
      }
    }
    byItem = found;
    owning.set(model, byItem);
  }
  return byItem.get(def) ?? [];
}

/**
 * For records of `def` written on their own (`POST /SalesOrderDetail` naming its order, a PATCH
 * moving a line to another order): whether each owner they name has room for them. The owners
 * are locked first, as a write of the owner's tree locks them, so that concurrent additions to one
 * owner are counted one after the other. Returns, per record, the error that keeps it out.
 */
export async function checkRoomInOwners(
  session: Session,
  model: Model,
  tenantId: string,
  def: AnyEntity,
  records: readonly Body[],
  limits: WriteLimits,
): Promise<(ServiceError | undefined)[]> {
  const refused: (ServiceError | undefined)[] = records.map(() => undefined);
  for (const { owner, name, field } of owningCollections(model, def)) {
    const guids = [
      ...new Set(records.flatMap((r) => (typeof r[field.inverse] === "string" ? [r[field.inverse] as string] : []))),
    ];
    if (guids.length === 0) continue;
    await session.store.load(session, owner, tenantId, guids, { forUpdate: true });
    const inverse = columnOf(def, [field.inverse])!.column;
    const held = new Map<string, number>();
    for (const item of await session.store.loadWhere(session, def, tenantId, inverse, guids)) {
      const of = item[field.inverse] as string;
      held.set(of, (held.get(of) ?? 0) + 1);
    }
    const limit = limitOf(field, limits);
    records.forEach((record, i) => {
      const of = record[field.inverse];
      if (typeof of !== "string" || refused[i] !== undefined) return;
      const count = (held.get(of) ?? 0) + 1;
      held.set(of, count);
      if (count > limit) refused[i] = tooLarge(`${owner.name}(${of})/${name}`, limit, count);
    });
  }
  return refused;
}
