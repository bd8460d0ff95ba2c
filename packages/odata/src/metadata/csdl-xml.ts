/**
 * The entity data model as CSDL XML (OData CSDL XML Representation 4.01): an `edmx:Edmx`
 * document with the vocabulary references and one schema. Indented, so a person can read it.
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

interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly children: readonly XmlElement[];
  readonly text?: string;
}

const element = (
  name: string,
  attributes: XmlElement["attributes"],
  children: readonly XmlElement[] = [],
  text?: string,
): XmlElement => ({ name, attributes, children, ...(text !== undefined && { text }) });

const escapeXml = (value: string) =>
  value.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function serialize(node: XmlElement, indent: string, out: string[]): void {
  const attributes = Object.entries(node.attributes)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join("");
  if (node.text !== undefined) out.push(`${indent}<${node.name}${attributes}>${escapeXml(node.text)}</${node.name}>`);
  else if (node.children.length === 0) out.push(`${indent}<${node.name}${attributes}/>`);
  else {
    out.push(`${indent}<${node.name}${attributes}>`);
    for (const child of node.children) serialize(child, `${indent}  `, out);
    out.push(`${indent}</${node.name}>`);
  }
}

/** `Type`, `Nullable` (default true in XML) and the facets of a typed element */
const typeAttributes = (t: EdmTypeRef) => ({
  Type: t.collection ? `Collection(${t.type})` : t.type,
  Nullable: t.nullable ? undefined : false,
  MaxLength: t.maxLength,
  Precision: t.precision,
  Scale: t.scale,
});

/** the inline form of a constant or path (`Bool="true"`), or undefined for a collection or record */
function inline(value: AnnotationValue): Record<string, string> | undefined {
  switch (value.kind) {
    case "bool":
      return { Bool: String(value.value) };
    case "string":
      return { String: value.value };
    case "propertyPath":
      return { PropertyPath: value.value };
    case "navigationPropertyPath":
      return { NavigationPropertyPath: value.value };
    case "path":
      return { Path: value.value };
    default:
      return undefined;
  }
}

/** the element form of a value, as inside a collection (`<PropertyPath>x</PropertyPath>`) */
function valueElement(value: AnnotationValue): XmlElement {
  switch (value.kind) {
    case "collection":
      return element("Collection", {}, value.items.map(valueElement));
    case "record":
      return element(
        "Record",
        { Type: value.type },
        Object.entries(value.properties).map(([property, v]) => {
          const attributes = inline(v);
          return attributes
            ? element("PropertyValue", { Property: property, ...attributes })
            : element("PropertyValue", { Property: property }, [valueElement(v)]);
        }),
      );
    default: {
      const [[name, text]] = Object.entries(inline(value)!) as [[string, string]];
      return element(name, {}, [], text);
    }
  }
}

const annotations = (list: readonly EdmAnnotation[]) =>
  list.map(({ term, qualifier, value }) => {
    const attributes = inline(value);
    return attributes
      ? element("Annotation", { Term: term, Qualifier: qualifier, ...attributes })
      : element("Annotation", { Term: term, Qualifier: qualifier }, [valueElement(value)]);
  });

const property = (p: EdmProperty) =>
  element("Property", { Name: p.name, ...typeAttributes(p), DefaultValue: p.defaultValue }, annotations(p.annotations));

const navigationProperty = (n: EdmNavigationProperty) =>
  element(
    "NavigationProperty",
    {
      Name: n.name,
      Type: n.collection ? `Collection(${n.type})` : n.type,
      Nullable: n.collection || n.nullable ? undefined : false,
      Partner: n.partner,
    },
    [...(n.onDelete ? [element("OnDelete", { Action: n.onDelete })] : []), ...annotations(n.annotations)],
  );

const members = (s: EdmStructure) => [
  ...s.properties.map(property),
  ...s.navigation.map(navigationProperty),
  ...annotations(s.annotations),
];

function type(t: EdmType): XmlElement {
  switch (t.kind) {
    case "entityType":
      return element("EntityType", { Name: t.name }, [
        element(
          "Key",
          {},
          t.key.map((name) => element("PropertyRef", { Name: name })),
        ),
        ...members(t),
      ]);
    case "complexType":
      return element("ComplexType", { Name: t.name }, members(t));
    case "enumType":
      return element(
        "EnumType",
        { Name: t.name },
        t.members.map((name, value) => element("Member", { Name: name, Value: value })),
      );
  }
}

const operation = (o: EdmOperation) =>
  element(o.kind === "function" ? "Function" : "Action", { Name: o.name, IsBound: o.bound ? true : undefined }, [
    ...o.parameters.map((p) =>
      element("Parameter", { Name: p.name, ...typeAttributes(p) }, annotations(p.annotations)),
    ),
    ...(o.returnType ? [element("ReturnType", typeAttributes(o.returnType))] : []),
    ...annotations(o.annotations),
  ]);

export function renderCsdlXml(doc: EdmDocument): string {
  const { schema } = doc;
  const { container } = schema;
  const root = element(
    "edmx:Edmx",
    { Version: doc.version, "xmlns:edmx": "http://docs.oasis-open.org/odata/ns/edmx" },
    [
      ...doc.references.map((r) =>
        element("edmx:Reference", { Uri: r.xml }, [
          element("edmx:Include", { Namespace: r.namespace, Alias: r.alias }),
        ]),
      ),
      element("edmx:DataServices", {}, [
        element(
          "Schema",
          { Namespace: schema.namespace, Alias: schema.alias, xmlns: "http://docs.oasis-open.org/odata/ns/edm" },
          [
            ...schema.types.map(type),
            ...schema.operations.map(operation),
            element("EntityContainer", { Name: container.name }, [
              ...container.entitySets.map((s) =>
                element("EntitySet", { Name: s.name, EntityType: s.entityType }, [
                  ...s.bindings.map((b) => element("NavigationPropertyBinding", { Path: b.path, Target: b.target })),
                  ...annotations(s.annotations),
                ]),
              ),
              ...container.imports.map((i) =>
                i.kind === "function"
                  ? element("FunctionImport", {
                      Name: i.name,
                      Function: i.operation,
                      EntitySet: i.entitySet,
                      IncludeInServiceDocument: i.includeInServiceDocument ? true : undefined,
                    })
                  : element("ActionImport", { Name: i.name, Action: i.operation, EntitySet: i.entitySet }),
              ),
            ]),
          ],
        ),
      ]),
    ],
  );
  const out = ['<?xml version="1.0" encoding="utf-8"?>'];
  serialize(root, "", out);
  return `${out.join("\n")}\n`;
}
