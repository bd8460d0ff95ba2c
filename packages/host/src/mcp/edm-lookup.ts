/**
 * Reading the entity data model that `$metadata` renders (buildEdm): types by qualified name, the
 * entity sets and their restrictions, and the few annotations the MCP tools and resources need.
 * The tools and resources describe exactly what `$metadata` describes, from the same build.
 */
import type {
  AnnotationValue,
  EdmAnnotation,
  EdmDocument,
  EdmEntitySet,
  EdmEntityType,
  EdmOperation,
  EdmType,
} from "@bizdata/odata";

type Annotated = { readonly annotations: readonly EdmAnnotation[] };

const annotation = (element: Annotated, term: string): AnnotationValue | undefined =>
  element.annotations.find((a) => a.term === term)?.value;

/** the element's Core.Description */
export function descriptionOf(element: Annotated): string | undefined {
  const value = annotation(element, "Core.Description");
  return value?.kind === "string" ? value.value : undefined;
}

/** computed by the service (Core.Computed): never written, and never filtered or sorted on when computed on read */
export const isComputed = (element: Annotated): boolean => annotation(element, "Core.Computed") !== undefined;

/** settable on create only (Core.Immutable): the key */
export const isImmutable = (element: Annotated): boolean => annotation(element, "Core.Immutable") !== undefined;

/** a method parameter the call may leave out (Core.OptionalParameter), with its default as CSDL writes it */
export function optionalParameter(element: Annotated): { readonly defaultValue?: string } | undefined {
  const value = annotation(element, "Core.OptionalParameter");
  if (value?.kind !== "record") return undefined;
  const given = value.properties.DefaultValue;
  return given?.kind === "string" ? { defaultValue: given.value } : {};
}

/** the property paths of an entity set's FilterRestrictions or SortRestrictions */
export function restrictedPaths(set: EdmEntitySet, term: "FilterRestrictions" | "SortRestrictions"): string[] {
  const record = annotation(set, `Capabilities.${term}`);
  if (record?.kind !== "record") return [];
  const paths = record.properties[term === "FilterRestrictions" ? "NonFilterableProperties" : "NonSortableProperties"];
  return paths?.kind === "collection"
    ? paths.items.flatMap((item) => (item.kind === "propertyPath" ? [item.value] : []))
    : [];
}

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
