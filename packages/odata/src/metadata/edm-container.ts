/**
 * The entity container: an entity set per entity that is not owned through a collection (an
 * owned item is reached through its owner's containment navigation property; CSDL lets an entity
 * be contained or belong to an entity set, not both), virtual entities included; navigation
 * property bindings for every reference reachable from the set, through complex properties and
 * contained collections; Capabilities restrictions naming the properties computed on read,
 * refusing `$search` where nothing is searchable, and for a virtual entity that its records are
 * not kept; and the imports of static methods.
 */
import { type AnyEntity, type Model, type PersistedField, searchColumns } from "@bizdata/core";
import type { EdmContainer, EdmEntitySet, EdmOperationImport } from "./edm.js";
import { computedOnRead } from "./edm-structured-types.js";
import type { SchemaNames } from "./schema-names.js";
import { queryRestrictions, virtualSetRestrictions } from "./vocabularies.js";

/** whether `$search` applies to an entity: it declares searchable text */
const isSearchable = (entity: AnyEntity) => searchColumns(entity).length > 0;

/** the entities with an entity set of their own: all but owned collection items */
export const entitySetsOf = (model: Model): Set<string> =>
  new Set([...model.entities.keys()].filter((name) => model.owner(name) === undefined));

export function buildContainer(model: Model, names: SchemaNames, imports: readonly EdmOperationImport[]): EdmContainer {
  const sets = entitySetsOf(model);
  const entitySets = [...sets].map((name): EdmEntitySet => {
    const entity = model.entity(name)!;
    const bindings: { path: string; target: string }[] = [];
    const contained: { path: string; properties: string[]; searchable: boolean }[] = [];
    const walk = (def: AnyEntity, prefix: string, seen: ReadonlySet<string>) => {
      for (const [field, value] of Object.entries(def.fields as Readonly<Record<string, PersistedField>>)) {
        const path = `${prefix}${field}`;
        if (value.kind === "reference" && sets.has(value.target)) bindings.push({ path, target: value.target });
        if (value.kind === "complex") {
          for (const [member, m] of Object.entries(value.fields)) {
            if (m.kind === "reference" && sets.has(m.target))
              bindings.push({ path: `${path}/${member}`, target: m.target });
          }
        }
        if (value.kind === "collection" && !seen.has(value.target.name)) {
          contained.push({ path, properties: computedOnRead(value.target), searchable: isSearchable(value.target) });
          walk(value.target, `${path}/`, new Set([...seen, value.target.name]));
        }
      }
    };
    walk(entity, "", new Set([name]));
    return {
      name,
      entityType: names.qualified(name),
      bindings,
      annotations: [
        ...queryRestrictions({ properties: computedOnRead(entity), searchable: isSearchable(entity) }, contained),
        ...(entity.storage === undefined ? [] : virtualSetRestrictions),
      ],
    };
  });
  return { name: names.free("the entity container", "Container", "EntityContainer"), entitySets, imports };
}
