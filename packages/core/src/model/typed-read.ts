/**
 * Reading another record by Guid, as methods, business logic, save logic and a virtual entity's
 * save may. Addressed by the entity's definition (`read(Product, guid)`) the record is typed by
 * it; by name (`read("Product", guid)`) it is a plain record, since a name alone says nothing to
 * the compiler. Both resolve against the model, so a definition the model does not hold is an
 * error, not a read of another entity with the same name.
 */
import type { EntityDefinition, RecordOf } from "./entity.js";
import type { AnyEntity, Model } from "./model.js";

/** an entity as a read names it: its name, or its definition */
export type EntityRef = string | EntityDefinition<string, any, any, any>;

export interface ReadRecord {
  <E extends EntityDefinition<string, any, any, any>>(entity: E, guid: string): Promise<RecordOf<E> | null>;
  (entity: string, guid: string): Promise<Record<string, unknown> | null>;
}

/** the model's definition of `entity`; `from` names the caller in the error */
export function modelEntity(model: Model, entity: EntityRef, from: string): AnyEntity {
  const name = typeof entity === "string" ? entity : entity.name;
  const def = model.entity(name);
  if (def === undefined) throw new Error(`${from}: there is no entity "${name}".`);
  if (typeof entity !== "string" && def !== entity) {
    throw new Error(
      `${from}: the entity "${name}" passed is not the model's; pass the definition the model was built from.`,
    );
  }
  return def;
}

/**
 * A `ReadRecord` over a read of the model's definitions. The one cast: a record read for a
 * definition the model holds has that definition's record type, which the compiler cannot follow
 * through a name.
 */
export const readRecord = (
  model: Model,
  from: string,
  read: (entity: AnyEntity, guid: string) => Promise<Record<string, unknown> | null>,
): ReadRecord => ((entity: EntityRef, guid: string) => read(modelEntity(model, entity, from), guid)) as ReadRecord;
