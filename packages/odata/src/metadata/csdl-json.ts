/**
 * The entity data model as CSDL JSON (OData CSDL JSON Representation 4.01), written the way the
 * OASIS reference converter writes the same model from XML: defaults left out (`$Type`
 * Edm.String, `$Nullable` false, `$Kind` Property), operations as arrays of overloads, path
 * constants as strings.
 */
import type {
  AnnotationValue,
  EdmAnnotation,
  EdmDocument,
  EdmNavigationProperty,
  EdmOperation,
  EdmProperty,
  EdmStructure,
  EdmType,
  EdmTypeRef,
} from "./edm.js";

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = Record<string, Json>;

/** `$Type` (Edm.String left out), `$Collection`, `$Nullable` (default false in JSON) and facets */
const typeMembers = (t: EdmTypeRef): JsonObject => ({
  ...(t.type !== "Edm.String" && { $Type: t.type }),
  ...(t.collection && { $Collection: true }),
  ...(t.nullable && { $Nullable: true }),
  ...(t.maxLength !== undefined && { $MaxLength: t.maxLength }),
  ...(t.precision !== undefined && { $Precision: t.precision }),
  ...(t.scale !== undefined && { $Scale: t.scale }),
});

function value(v: AnnotationValue): Json {
  switch (v.kind) {
    // a path constant is a plain string: the term's type says it is a path (CSDL JSON §14.4.1)
    case "bool":
    case "string":
    case "propertyPath":
      return v.value;
    case "collection":
      return v.items.map(value);
    case "record":
      return Object.fromEntries(Object.entries(v.properties).map(([k, item]) => [k, value(item)]));
  }
}

const annotations = (list: readonly EdmAnnotation[]): JsonObject =>
  Object.fromEntries(list.map((a) => [`@${a.term}`, value(a.value)]));

const property = (p: EdmProperty): JsonObject => ({
  ...typeMembers(p),
  ...(p.defaultValue !== undefined && { $DefaultValue: p.defaultValue }),
  ...annotations(p.annotations),
});

const navigationProperty = (n: EdmNavigationProperty): JsonObject => ({
  $Kind: "NavigationProperty",
  $Type: n.type,
  ...(n.collection && { $Collection: true }),
  ...(!n.collection && n.nullable && { $Nullable: true }),
  ...(n.partner !== undefined && { $Partner: n.partner }),
  ...(n.onDelete !== undefined && { $OnDelete: n.onDelete }),
  ...annotations(n.annotations),
});

const members = (s: EdmStructure): JsonObject => ({
  ...Object.fromEntries(s.properties.map((p) => [p.name, property(p)])),
  ...Object.fromEntries(s.navigation.map((n) => [n.name, navigationProperty(n)])),
  ...annotations(s.annotations),
});

function type(t: EdmType): JsonObject {
  switch (t.kind) {
    case "entityType":
      return { $Kind: "EntityType", $Key: t.key, ...members(t) };
    case "complexType":
      return { $Kind: "ComplexType", ...members(t) };
    case "enumType":
      return { $Kind: "EnumType", ...Object.fromEntries(t.members.map((name, i) => [name, i])) };
  }
}

const overload = (o: EdmOperation): JsonObject => ({
  $Kind: o.kind === "function" ? "Function" : "Action",
  ...(o.bound && { $IsBound: true }),
  ...(o.parameters.length > 0 && {
    $Parameter: o.parameters.map((p) => ({ $Name: p.name, ...typeMembers(p), ...annotations(p.annotations) })),
  }),
  ...(o.returnType && { $ReturnType: typeMembers(o.returnType) }),
  ...annotations(o.annotations),
});

export function renderCsdlJson(doc: EdmDocument): JsonObject {
  const { schema } = doc;
  const { container } = schema;
  const operations = new Map<string, JsonObject[]>();
  for (const o of schema.operations) operations.set(o.name, [...(operations.get(o.name) ?? []), overload(o)]);
  return {
    $Version: doc.version,
    $EntityContainer: `${schema.namespace}.${container.name}`,
    $Reference: Object.fromEntries(
      doc.references.map((r) => [r.json, { $Include: [{ $Namespace: r.namespace, $Alias: r.alias }] }]),
    ),
    [schema.namespace]: {
      ...(schema.alias !== undefined && { $Alias: schema.alias }),
      ...Object.fromEntries(schema.types.map((t) => [t.name, type(t)])),
      ...Object.fromEntries(operations),
      [container.name]: {
        $Kind: "EntityContainer",
        ...Object.fromEntries(
          container.entitySets.map((s) => [
            s.name,
            {
              $Collection: true,
              $Type: s.entityType,
              ...(s.bindings.length > 0 && {
                $NavigationPropertyBinding: Object.fromEntries(s.bindings.map((b) => [b.path, b.target])),
              }),
              ...annotations(s.annotations),
            },
          ]),
        ),
        ...Object.fromEntries(
          container.imports.map((i) => [
            i.name,
            i.kind === "function"
              ? {
                  $Function: i.operation,
                  ...(i.entitySet !== undefined && { $EntitySet: i.entitySet }),
                  ...(i.includeInServiceDocument && { $IncludeInServiceDocument: true }),
                }
              : { $Action: i.operation, ...(i.entitySet !== undefined && { $EntitySet: i.entitySet }) },
          ]),
        ),
      },
    },
  };
}
