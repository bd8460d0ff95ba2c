/**
 * A model is the set of entities one service exposes. `defineModel` checks the definitions
 * against each other once (every reference and collection points at a registered entity, every
 * collection's inverse is a reference back to its owner) so later stages can trust them.
 */
import type { EntityDefinition } from "./entity.js";
import type { CollectionField, PersistedField } from "./fields.js";

export type AnyEntity = EntityDefinition<string, any, any>;

export interface Model {
  readonly entities: ReadonlyMap<string, AnyEntity>;
  /** the entity named exactly `name` (case sensitive, spec 2.1), or undefined */
  entity(name: string): AnyEntity | undefined;
  /** for an entity owned through a collection: the owner and the inverse reference property */
  owner(
    name: string,
  ): { readonly entity: AnyEntity; readonly collection: string; readonly inverse: string } | undefined;
}

/**
 * @example
 * const model = defineModel([Product, ProductUom, Customer]);
 * model.entity("Product")?.naturalKey.property; // "SKU"
 */
export function defineModel(definitions: readonly AnyEntity[]): Model {
  const entities = new Map<string, AnyEntity>();
  for (const def of definitions) {
    if (entities.has(def.name)) throw new Error(`Entity "${def.name}" is registered twice.`);
    entities.set(def.name, def);
  }
  const owners = new Map<string, { entity: AnyEntity; collection: string; inverse: string }>();
  const registered = (target: AnyEntity | string, from: string): AnyEntity => {
    const name = typeof target === "string" ? target : target.name;
    const def = entities.get(name);
    if (def === undefined || (typeof target !== "string" && def !== target)) {
      throw new Error(`${from} points at entity "${name}", which is not part of the model; add it to defineModel.`);
    }
    return def;
  };
  const checkField = (owner: AnyEntity, path: string, field: PersistedField) => {
    if (field.kind === "reference" && registered(field.target, path).storage !== undefined) {
      throw new Error(`${path} refers to the virtual entity "${field.target}", whose records are never stored.`);
    }
    if (field.kind === "complex") {
      for (const [name, member] of Object.entries(field.fields)) checkField(owner, `${path}.${name}`, member);
    }
    if (field.kind === "collection") checkCollection(owner, path, field);
  };
  const checkCollection = (owner: AnyEntity, path: string, field: CollectionField) => {
    const item = registered(field.target, path);
    const inverse = item.fields[field.inverse] as PersistedField | undefined;
    if (inverse?.kind !== "reference" || inverse.target !== owner.name) {
      throw new Error(`${path}: inverse "${field.inverse}" must be a reference from ${item.name} to ${owner.name}.`);
    }
    const previous = owners.get(item.name);
    if (previous !== undefined) {
      throw new Error(
        `${item.name} is owned by both ${previous.entity.name} and ${owner.name}; an item has one owner.`,
      );
    }
    owners.set(item.name, { entity: owner, collection: path.slice(owner.name.length + 1), inverse: field.inverse });
  };
  for (const def of entities.values()) {
    for (const [name, field] of Object.entries(def.fields as Record<string, PersistedField>)) {
      checkField(def, `${def.name}.${name}`, field);
    }
  }
  return {
    entities,
    entity: (name) => entities.get(name),
    owner: (name) => owners.get(name),
  };
}
