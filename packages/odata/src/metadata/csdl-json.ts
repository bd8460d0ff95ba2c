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

/**
 * How a record names its type (CSDL JSON §14.4.13, the type as control information): `@odata.type`
 * in 4.0, `@type` in 4.01, its value the vocabulary's address and the alias-qualified name, as
 * the OASIS converter writes it from the XML reference
 */
interface RecordTypes {
  readonly key: "@odata.type" | "@type";
  /** the address of the vocabulary an alias stands for */
  readonly addresses: ReadonlyMap<string, string>;
}

function value(v: AnnotationValue, r: RecordTypes): Json {
  switch (v.kind) {
    // a path constant is a plain string: the term's type says it is a path (CSDL JSON §14.4.1)
    case "bool":
    case "string":
    case "propertyPath":
    case "navigationPropertyPath":
      return v.value;
    case "path":
      return { $Path: v.value };
    case "collection":
      return v.items.map((item) => value(item, r));
    case "record": {
      const alias = v.type?.slice(0, v.type.lastIndexOf("."));
      return {
        ...(v.type !== undefined && { [r.key]: `${r.addresses.get(alias!) ?? ""}#${v.type}` }),
        ...Object.fromEntries(Object.entries(v.properties).map(([k, item]) => [k, value(item, r)])),
      };
    }
  }
}

const annotations = (list: readonly EdmAnnotation[], r: RecordTypes): JsonObject =>
  Object.fromEntries(
    list.map((a) => [`@${a.term}${a.qualifier === undefined ? "" : `#${a.qualifier}`}`, value(a.value, r)]),
  );

const property = (p: EdmProperty, r: RecordTypes): JsonObject => ({
  ...typeMembers(p),
  ...(p.defaultValue !== undefined && { $DefaultValue: p.defaultValue }),
  ...annotations(p.annotations, r),
});

const navigationProperty = (n: EdmNavigationProperty, r: RecordTypes): JsonObject => ({
  $Kind: "NavigationProperty",
  $Type: n.type,
  ...(n.collection && { $Collection: true }),
  ...(!n.collection && n.nullable && { $Nullable: true }),
  ...(n.partner !== undefined && { $Partner: n.partner }),
  ...(n.onDelete !== undefined && { $OnDelete: n.onDelete }),
  ...annotations(n.annotations, r),
});

const members = (s: EdmStructure, r: RecordTypes): JsonObject => ({
  ...Object.fromEntries(s.properties.map((p) => [p.name, property(p, r)])),
  ...Object.fromEntries(s.navigation.map((n) => [n.name, navigationProperty(n, r)])),
  ...annotations(s.annotations, r),
});

function type(t: EdmType, r: RecordTypes): JsonObject {
  switch (t.kind) {
    case "entityType":
      return { $Kind: "EntityType", $Key: t.key, ...members(t, r) };
    case "complexType":
      return { $Kind: "ComplexType", ...members(t, r) };
    case "enumType":
      return { $Kind: "EnumType", ...Object.fromEntries(t.members.map((name, i) => [name, i])) };
  }
}

const overload = (o: EdmOperation, r: RecordTypes): JsonObject => ({
  $Kind: o.kind === "function" ? "Function" : "Action",
  ...(o.bound && { $IsBound: true }),
  ...(o.parameters.length > 0 && {
    $Parameter: o.parameters.map((p) => ({ $Name: p.name, ...typeMembers(p), ...annotations(p.annotations, r) })),
  }),
  ...(o.returnType && { $ReturnType: typeMembers(o.returnType) }),
  ...annotations(o.annotations, r),
});

export function renderCsdlJson(doc: EdmDocument): JsonObject {
  const r: RecordTypes = {
    key: doc.version === "4.0" ? "@odata.type" : "@type",
    addresses: new Map(doc.references.map((r) => [r.alias, r.xml])),
  };
  const { schema } = doc;
  const { container } = schema;
  const operations = new Map<string, JsonObject[]>();
  for (const o of schema.operations) operations.set(o.name, [...(operations.get(o.name) ?? []), overload(o, r)]);
  return {
    $Version: doc.version,
    $EntityContainer: `${schema.namespace}.${container.name}`,
    $Reference: Object.fromEntries(
      doc.references.map((r) => [r.json, { $Include: [{ $Namespace: r.namespace, $Alias: r.alias }] }]),
    ),
    [schema.namespace]: {
      ...(schema.alias !== undefined && { $Alias: schema.alias }),
      ...Object.fromEntries(schema.types.map((t) => [t.name, type(t, r)])),
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
              ...annotations(s.annotations, r),
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
