/**
 * Reading back the annotations `$metadata` writes (vocabularies.ts), for what else describes the
 * model from the same build: the OpenAPI document and the MCP tools and resources. The terms are
 * looked up by the same qualified names, so every description says the same thing.
 */
import type { AnnotationValue, EdmAnnotation } from "./edm.js";

const find = (annotations: readonly EdmAnnotation[], term: string): AnnotationValue | undefined =>
  annotations.find((a) => a.term === term)?.value;

/** Core.Description */
export function descriptionOf(annotations: readonly EdmAnnotation[]): string | undefined {
  const value = find(annotations, "Core.Description");
  return value?.kind === "string" ? value.value : undefined;
}

/** Core.Computed: the service computes it, a client never writes it */
export const isComputed = (annotations: readonly EdmAnnotation[]): boolean =>
  find(annotations, "Core.Computed")?.kind === "bool";

/** Core.Immutable: given on create (or assigned), never changed */
export const isImmutable = (annotations: readonly EdmAnnotation[]): boolean =>
  find(annotations, "Core.Immutable")?.kind === "bool";

/**
 * Core.OptionalParameter: whether a call may leave the parameter out, and the value it then
 * takes (as text, the way CSDL writes it)
 */
export function optionalParameterOf(annotations: readonly EdmAnnotation[]): {
  readonly optional: boolean;
  readonly defaultValue?: string;
} {
  const value = find(annotations, "Core.OptionalParameter");
  if (value?.kind !== "record") return { optional: false };
  const given = value.properties.DefaultValue;
  return given?.kind === "string" ? { optional: true, defaultValue: given.value } : { optional: true };
}

/** the properties of Core.AlternateKeys: each identifies a record as well as its key does */
export function alternateKeysOf(annotations: readonly EdmAnnotation[]): string[] {
  const value = find(annotations, "Core.AlternateKeys");
  if (value?.kind !== "collection") return [];
  return value.items.flatMap((key) => {
    const parts = key.kind === "record" ? key.properties.Key : undefined;
    if (parts?.kind !== "collection") return [];
    return parts.items.flatMap((part) => {
      const name = part.kind === "record" ? part.properties.Name : undefined;
      return name?.kind === "propertyPath" ? [name.value] : [];
    });
  });
}

/** the property paths of an entity set's Capabilities.FilterRestrictions or SortRestrictions */
export function restrictedPaths(
  annotations: readonly EdmAnnotation[],
  term: "FilterRestrictions" | "SortRestrictions",
): string[] {
  const record = find(annotations, `Capabilities.${term}`);
  if (record?.kind !== "record") return [];
  const paths = record.properties[term === "FilterRestrictions" ? "NonFilterableProperties" : "NonSortableProperties"];
  return paths?.kind === "collection"
    ? paths.items.flatMap((item) => (item.kind === "propertyPath" ? [item.value] : []))
    : [];
}
