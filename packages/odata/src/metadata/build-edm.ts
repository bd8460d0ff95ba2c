/**
 * The entity data model of a service as one tenant sees it, from the model alone: every entity
 * as an entity type (key `Guid`), complex and enum types as its fields need them, every method
 * the tenant's features leave available as an operation, and the entity container.
 *
 * @example
 * const edm = buildEdm(sampleModel, { features: new Set(["PriceLevels"]) });
 * renderCsdlXml(edm); // <edmx:Edmx Version="4.0"> …
 */
import type { AnyEntity, Model } from "@bizdata/core";
import type { EdmAnnotation, EdmDocument, EdmEntityType, EdmType, EdmVersion } from "./edm.js";
import { buildContainer } from "./edm-container.js";
import { buildOperations } from "./edm-operations.js";
import { computedOnRead, StructuredTypes } from "./edm-structured-types.js";
import { SchemaNames } from "./schema-names.js";
import { changeTracking as changeTrackingRecord, presentationVocabularies, vocabularies } from "./vocabularies.js";

export interface EdmOptions {
  /** the tenant's features: methods whose subscribers all need others are left out */
  readonly features: ReadonlySet<string>;
  /** default 4.0 */
  readonly version?: EdmVersion;
  /** the service keeps a change log, so its sets' reads can be tracked (Capabilities.ChangeTracking); default false */
  readonly changeTracking?: boolean;
}

export function buildEdm(model: Model, { features, version = "4.0", changeTracking = false }: EdmOptions): EdmDocument {
  // with an alias, names inside the document are qualified by it (as the OASIS converter writes them)
  const names = new SchemaNames(model.alias ?? model.namespace);
  for (const name of model.entities.keys()) names.claim(name, `entity type ${name}`);
  const structured = new StructuredTypes(model, names);
  const entityTypes = [...model.entities.values()].map((entity) => structured.entityType(entity));
  const { operations, imports } = buildOperations(model, names, features);
  const entities = [...model.entities.values()];
  const complex = new Set(structured.complexTypes.map((type) => type.name));
  const isComplex = (type: string) => !type.startsWith("Edm.") && complex.has(type.slice(type.lastIndexOf(".") + 1));
  const tracking = changeTracking
    ? new Map(entities.map((entity, i) => [entity, changeTrackingOf(entity, entityTypes[i]!, isComplex)]))
    : undefined;
  const container = buildContainer(model, names, imports, tracking && ((entity) => tracking.get(entity)));
  const types = [...entityTypes, ...structured.complexTypes, ...names.enumTypes];
  const used = aliasesUsed(types);
  return {
    version,
    references: [...vocabularies, ...presentationVocabularies.filter((v) => used.has(v.alias))],
    schema: {
      namespace: model.namespace,
      ...(model.alias !== undefined && { alias: model.alias }),
      types,
      operations,
      container,
    },
  };
}

/** the vocabulary aliases the types' annotations use (the presentation terms are only on types and their members) */
function aliasesUsed(types: readonly EdmType[]): Set<string> {
  const used = new Set<string>();
  const note = (annotations: readonly EdmAnnotation[]) => {
    for (const { term } of annotations) used.add(term.slice(0, term.indexOf(".")));
  };
  for (const type of types) {
    if (type.kind === "enumType") continue;
    note(type.annotations);
    for (const member of [...type.properties, ...type.navigation]) note(member.annotations);
  }
  return used;
}

/**
 * What a tracked read of a stored entity's set may use: its single-valued primitive and enum
 * properties that `$filter` takes, and its owned collections (their items' changes are the
 * owner's); a virtual entity's records are kept nowhere, so nothing of them is logged
 */
function changeTrackingOf(
  entity: AnyEntity,
  type: EdmEntityType,
  isComplex: (type: string) => boolean,
): EdmAnnotation | undefined {
  if (entity.storage !== undefined) return undefined;
  const computed = new Set(computedOnRead(entity));
  return changeTrackingRecord(
    type.properties.filter((p) => !p.collection && !isComplex(p.type) && !computed.has(p.name)).map((p) => p.name),
    type.navigation.filter((n) => n.onDelete === "Cascade").map((n) => n.name),
  );
}
