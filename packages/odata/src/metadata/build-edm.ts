/**
 * The entity data model of a service as one tenant sees it, from the model alone: every entity
 * as an entity type (key `Guid`), complex and enum types as its fields need them, every method
 * the tenant's features leave available as an operation, and the entity container.
 *
 * @example
 * const edm = buildEdm(sampleModel, { features: new Set(["PriceLevels"]) });
 * renderCsdlXml(edm); // <edmx:Edmx Version="4.0"> …
 */
import type { Model } from "@bizdata/core";
import type { EdmAnnotation, EdmDocument, EdmType, EdmVersion } from "./edm.js";
import { buildContainer } from "./edm-container.js";
import { buildOperations } from "./edm-operations.js";
import { StructuredTypes } from "./edm-structured-types.js";
import { SchemaNames } from "./schema-names.js";
import { presentationVocabularies, vocabularies } from "./vocabularies.js";

export interface EdmOptions {
  /** the tenant's features: methods whose subscribers all need others are left out */
  readonly features: ReadonlySet<string>;
  /** default 4.0 */
  readonly version?: EdmVersion;
}

export function buildEdm(model: Model, { features, version = "4.0" }: EdmOptions): EdmDocument {
  // with an alias, names inside the document are qualified by it (as the OASIS converter writes them)
  const names = new SchemaNames(model.alias ?? model.namespace);
  for (const name of model.entities.keys()) names.claim(name, `entity type ${name}`);
  const structured = new StructuredTypes(model, names);
  const entityTypes = [...model.entities.values()].map((entity) => structured.entityType(entity));
  const { operations, imports } = buildOperations(model, names, features);
  const container = buildContainer(model, names, imports);
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
