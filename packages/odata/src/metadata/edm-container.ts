/**
 * The entity container: an entity set per entity, owned collection items (`SalesOrderDetail`)
 * and virtual entities included. An item's set is where its canonical address is
 * (`SalesOrderDetail(…)`); its owner's collection (`SalesOrder(…)/Details`) is a navigation
 * property bound to that set, not a containment one: CSDL 4.01 §8.4 lets an entity be contained
 * or belong to an entity set, not both, and clients that generate code from `$metadata` (the SAP
 * Cloud SDK) address only what an entity set holds. Navigation property bindings for every
 * reference and collection, also through complex properties; Capabilities restrictions naming
 * the properties computed on read, refusing `$search` where nothing is searchable, and for a
 * virtual entity that its records are not kept; and the imports of static methods.
 */
import { type AnyEntity, type Model, type PersistedField, searchColumns } from "@bizdata/core";
import type { EdmAnnotation, EdmContainer, EdmEntitySet, EdmOperationImport } from "./edm.js";
import { computedOnRead } from "./edm-structured-types.js";
import type { SchemaNames } from "./schema-names.js";
import { queryRestrictions, virtualSetRestrictions } from "./vocabularies.js";

/** whether `$search` applies to an entity: it declares searchable text */
const isSearchable = (entity: AnyEntity) => searchColumns(entity).length > 0;

/** the bindings of a set's navigation properties: each to the set of the entity it leads to */
function bindingsOf(entity: AnyEntity): { path: string; target: string }[] {
  const bindings: { path: string; target: string }[] = [];
  for (const [path, value] of Object.entries(entity.fields as Readonly<Record<string, PersistedField>>)) {
    if (value.kind === "reference") bindings.push({ path, target: value.target });
    if (value.kind === "collection") bindings.push({ path, target: value.target.name });
    if (value.kind === "complex") {
      for (const [member, m] of Object.entries(value.fields)) {
        if (m.kind === "reference") bindings.push({ path: `${path}/${member}`, target: m.target });
      }
    }
  }
  return bindings;
}

/**
 * The container; `changeTracking`, when the service keeps a change log, gives each set's
 * Capabilities.ChangeTracking (none for a set whose reads cannot be tracked)
 */
export function buildContainer(
  model: Model,
  names: SchemaNames,
  imports: readonly EdmOperationImport[],
  changeTracking?: (entity: AnyEntity) => EdmAnnotation | undefined,
): EdmContainer {
  const entitySets = [...model.entities.values()].map((entity): EdmEntitySet => {
    const tracking = changeTracking?.(entity);
    return {
      name: entity.name,
      entityType: names.qualified(entity.name),
      bindings: bindingsOf(entity),
      annotations: [
        ...queryRestrictions({ properties: computedOnRead(entity), searchable: isSearchable(entity) }),
        ...(entity.storage === undefined ? [] : virtualSetRestrictions),
        ...(tracking === undefined ? [] : [tracking]),
      ],
    };
  });
  return { name: names.free("the entity container", "Container", "EntityContainer"), entitySets, imports };
}
