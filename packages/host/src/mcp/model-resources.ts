/**
 * Resources describing the model, so an agent can write correct queries: the entity sets with
 * their natural keys; per entity set its properties with types (complex values and owned
 * collection items spelled out), references, which properties are computed on read and so cannot
 * be filtered or sorted on, and its methods with their parameters and tools; and the CSDL JSON
 * of `$metadata` itself. All from the same entity data model build as `$metadata`, for the
 * caller's tenant.
 */
import type { Model } from "@bizdata/core";
import {
  descriptionOf,
  type EdmEntitySet,
  type EdmOperation,
  type EdmStructure,
  type EdmTypeRef,
  isComputed,
  optionalParameterOf,
  renderCsdlJson,
  restrictedPaths,
} from "@bizdata/odata";
import type { Resource, ResourceTemplateType } from "@modelcontextprotocol/server";
import type { EdmLookup } from "./edm-lookup.js";
import { methodToolName } from "./model-tools.js";

export const MODEL_URI = "bizdata://model";
export const METADATA_URI = "bizdata://model/$metadata";
const JSON_TYPE = "application/json";

export const entitySetUri = (name: string) => `${MODEL_URI}/${name}`;
export const ENTITY_SET_TEMPLATE = `${MODEL_URI}/{entitySet}`;

export const resourceTemplates: ResourceTemplateType[] = [
  {
    uriTemplate: ENTITY_SET_TEMPLATE,
    name: "entity-set",
    title: "An entity set of the model",
    description: "Properties with types, natural key, references, collections, methods, and what cannot be filtered.",
    mimeType: JSON_TYPE,
  },
];

export function modelResources(lookup: EdmLookup): Resource[] {
  return [
    {
      uri: MODEL_URI,
      name: "model",
      title: "The data model",
      description: "Entity sets, natural keys, and how to query them. Start here.",
      mimeType: JSON_TYPE,
    },
    ...lookup.entitySets.map((set) => ({
      uri: entitySetUri(set.name),
      name: set.name,
      title: `${set.name}: properties and methods`,
      ...(descriptionOf(lookup.entityType(set.entityType).annotations) !== undefined && {
        description: descriptionOf(lookup.entityType(set.entityType).annotations),
      }),
      mimeType: JSON_TYPE,
    })),
    {
      uri: METADATA_URI,
      name: "$metadata",
      title: "CSDL JSON",
      description: "The service's $metadata document as CSDL JSON (OData 4.01).",
      mimeType: JSON_TYPE,
    },
  ];
}

/** the text of a resource, or undefined when there is no such resource */
export function readResource(model: Model, lookup: EdmLookup, uri: string): string | undefined {
  if (uri === MODEL_URI) return JSON.stringify(overview(model, lookup));
  if (uri === METADATA_URI) return JSON.stringify(renderCsdlJson(lookup.edm));
  const set = lookup.entitySets.find((s) => entitySetUri(s.name) === uri);
  return set === undefined ? undefined : JSON.stringify(entitySet(model, lookup, set));
}

function overview(model: Model, lookup: EdmLookup) {
  return {
    entitySets: lookup.entitySets.map((set) => {
      const entity = model.entity(set.name);
      const about = descriptionOf(lookup.entityType(set.entityType).annotations);
      return {
        name: set.name,
        ...(about !== undefined && { description: about }),
        naturalKey: entity?.naturalKey.property ?? "Guid",
        ...(entity?.storage !== undefined && { virtual: true }),
        resource: entitySetUri(set.name),
      };
    }),
    querying: [
      "Records are read with query_<EntitySet> and get_<EntitySet>; without select only Guid comes back.",
      "Names are case sensitive. filter, orderby, apply and compute take persisted properties only: a property listed as computed (nonFilterable) can be selected, never filtered or sorted on.",
      "Paths run through references and complex values (Customer/Address/City); a collection is read with expand, filtered with any/all (Lines/any(l: l/Quantity gt 5)).",
      "A reference is written as the target's Guid or its natural key; owned collections are written inline with their owner.",
      "Changes are staged in a workflow (create_, update_, delete_, call_ of Modify methods) and saved by workflow_commit; questions are answered with workflow_answer.",
    ],
  };
}

function entitySet(model: Model, lookup: EdmLookup, set: EdmEntitySet) {
  const type = lookup.entityType(set.entityType);
  const entity = model.entity(set.name);
  const about = descriptionOf(type.annotations);
  return {
    name: set.name,
    ...(about !== undefined && { description: about }),
    key: "Guid",
    naturalKey: { property: entity?.naturalKey.property ?? "Guid", unique: entity?.naturalKey.unique ?? true },
    ...(entity?.storage !== undefined && {
      virtual: "No stored records: they exist only staged in a workflow, and commit turns them into real data.",
    }),
    ...structure(lookup, type, new Set([type.name])),
    nonFilterable: restrictedPaths(set.annotations, "FilterRestrictions"),
    nonSortable: restrictedPaths(set.annotations, "SortRestrictions"),
    methods: lookup.methods
      .filter((op) => lookup.local(op.parameters[0]!.type) === set.name)
      .map((op) => method(model, lookup, set.name, op)),
  };
}

/** a type's members; owned collections with their items' members (a cycle is named, not repeated) */
function structure(lookup: EdmLookup, type: EdmStructure, seen: ReadonlySet<string>): Record<string, unknown> {
  const references = type.navigation.filter((n) => !n.collection);
  const collections = type.navigation.filter((n) => n.collection);
  return {
    properties: type.properties.map((p) => ({
      name: p.name,
      ...typeOf(lookup, p, seen),
      ...(isComputed(p.annotations) && { computed: true }),
      ...(p.defaultValue !== undefined && { default: p.defaultValue }),
      ...(descriptionOf(p.annotations) !== undefined && { description: descriptionOf(p.annotations) }),
    })),
    ...(references.length > 0 && {
      references: references.map((n) => ({
        name: n.name,
        target: lookup.local(n.type),
        nullable: n.nullable,
        ...(descriptionOf(n.annotations) !== undefined && { description: descriptionOf(n.annotations) }),
      })),
    }),
    ...(collections.length > 0 && {
      collections: collections.map((n) => {
        const item = lookup.local(n.type);
        return {
          name: n.name,
          itemType: item,
          ...(n.partner !== undefined && { inverse: n.partner }),
          ...(seen.has(item) ? {} : { item: structure(lookup, lookup.entityType(n.type), new Set([...seen, item])) }),
        };
      }),
    }),
  };
}

function typeOf(lookup: EdmLookup, ref: EdmTypeRef, seen: ReadonlySet<string>): Record<string, unknown> {
  const type = lookup.type(ref.type);
  const facets = {
    nullable: ref.nullable,
    ...(ref.collection && { collection: true }),
    ...(ref.maxLength !== undefined && { maxLength: ref.maxLength }),
    ...(ref.precision !== undefined && { precision: ref.precision }),
    ...(ref.scale !== undefined && { scale: ref.scale }),
  };
  switch (type?.kind) {
    case "enumType":
      return { type: "enum", values: type.members, ...facets };
    case "complexType":
      return { type: "complex", ...facets, ...structure(lookup, type, seen) };
    default:
      return { type: ref.type, ...facets };
  }
}

function method(model: Model, lookup: EdmLookup, entity: string, op: EdmOperation) {
  const binding = op.parameters[0]!;
  // a Read method that returns nothing is a Function returning a null string in CSDL: say "nothing"
  const returnsNothing = model.entity(entity)?.methods[op.name]?.returns.kind === "none";
  return {
    name: op.name,
    kind: op.kind === "function" ? "read" : "modify",
    static: binding.collection,
    ...(descriptionOf(op.annotations) !== undefined && { description: descriptionOf(op.annotations) }),
    parameters: op.parameters.slice(1).map((p) => {
      const optional = optionalParameterOf(p.annotations);
      return {
        name: p.name,
        ...typeOf(lookup, p, new Set()),
        required: !optional.optional,
        ...(optional.defaultValue !== undefined && { default: optional.defaultValue }),
        ...(descriptionOf(p.annotations) !== undefined && { description: descriptionOf(p.annotations) }),
      };
    }),
    ...(op.returnType !== undefined && !returnsNothing && { returns: typeOf(lookup, op.returnType, new Set()) }),
    tool: methodToolName(entity, op.name),
  };
}
