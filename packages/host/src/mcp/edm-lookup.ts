/**
 * Reading the entity data model that `$metadata` renders (buildEdm): types by qualified name and
 * the entity sets. The tools and resources describe exactly what `$metadata` describes, from the
 * same build, its annotations read back by odata's edm-annotations.
 */
import type { EdmDocument, EdmEntitySet, EdmEntityType, EdmOperation, EdmType } from "@bizdata/odata";

export class EdmLookup {
  readonly #types = new Map<string, EdmType>();

  constructor(readonly edm: EdmDocument) {
    for (const type of edm.schema.types) this.#types.set(this.qualified(type.name), type);
  }

  /** names inside the document are qualified by the schema's alias when it has one (schema-names.ts) */
  qualified(name: string): string {
    return `${this.edm.schema.alias ?? this.edm.schema.namespace}.${name}`;
  }

  /** the unqualified name of a type of this schema (`bizdata.Product` → `Product`) */
  local(qualified: string): string {
    const prefix = this.qualified("");
    return qualified.startsWith(prefix) ? qualified.slice(prefix.length) : qualified;
  }

  /** a type of this schema by qualified name; undefined for the Edm primitives */
  type(qualified: string): EdmType | undefined {
    return this.#types.get(qualified);
  }

  entityType(qualified: string): EdmEntityType {
    const type = this.#types.get(qualified);
    if (type?.kind !== "entityType") throw new Error(`${qualified} is not an entity type of the model.`);
    return type;
  }

  get entitySets(): readonly EdmEntitySet[] {
    return this.edm.schema.container.entitySets;
  }

  /** bound operations (each method once, bound to its entity or its collection) */
  get methods(): readonly EdmOperation[] {
    return this.edm.schema.operations.filter((op) => op.bound);
  }
}
