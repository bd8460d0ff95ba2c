/**
 * Entity types and complex types from the entity definitions: scalar fields as properties with
 * their facets, references as navigation properties (partnered with the owner's collection
 * where the reference is a collection's inverse), owned collections as collection-valued
 * navigation properties whose items are deleted with their owner (OnDelete Cascade; the items
 * have an entity set of their own, so the navigation is no containment: edm-container.ts), complex
 * fields (`MailingAddress`) as complex types, and the properties computed on read — virtuals and
 * `RecordReadOnly` — annotated Core.Computed.
 */
import {
  type AnyEntity,
  builtInFields,
  type ComplexField,
  type Model,
  type PersistedField,
  type ReferenceField,
  type ScalarField,
  searchColumns,
  type Virtuals,
} from "@bizdata/core";
import type { EdmAnnotation, EdmComplexType, EdmEntityType, EdmNavigationProperty, EdmProperty } from "./edm.js";
import { defaultOf, scalarTypeRef } from "./edm-types.js";
import type { SchemaNames } from "./schema-names.js";
import {
  alternateKeys,
  computed,
  description,
  fieldGroup,
  headerInfo,
  immutable,
  label,
  lineItem,
  valueList,
} from "./vocabularies.js";

/** selectable on every entity (spec 2.1): the names of the methods disabled for the record */
const RECORD_READ_ONLY = "RecordReadOnly";

/** the properties of an entity that are computed when read, so `$filter` and `$orderby` refuse them */
export const computedOnRead = (entity: AnyEntity): string[] => [...Object.keys(entity.virtuals), RECORD_READ_ONLY];

const described = (text: string | undefined): EdmAnnotation[] => (text === undefined ? [] : [description(text)]);

/** a field's own annotations: its description and its caption */
const fieldAnnotations = (field: { readonly description?: string; readonly label?: string }): EdmAnnotation[] => [
  ...described(field.description),
  ...(field.label === undefined ? [] : [label(field.label)]),
];

/** how a generic client shows the entity: its names, its list's columns, its form's groups */
function presentation(entity: AnyEntity): EdmAnnotation[] {
  const annotations: EdmAnnotation[] = [];
  if (entity.label !== undefined)
    annotations.push(label(entity.label), headerInfo(entity.label, entity.pluralLabel ?? entity.label));
  if (entity.lineItem !== undefined) annotations.push(lineItem(entity.lineItem));
  for (const [qualifier, group] of Object.entries(entity.fieldGroups ?? {}))
    annotations.push(fieldGroup(qualifier, group.label, group.fields));
  return annotations;
}

export class StructuredTypes {
  readonly complexTypes: EdmComplexType[] = [];
  readonly #complexNames = new Map<ComplexField, string>();

  constructor(
    private readonly model: Model,
    private readonly names: SchemaNames,
  ) {}

  entityType(entity: AnyEntity): EdmEntityType {
    const { properties, navigation } = this.#members(entity.name, entity.fields, entity);
    for (const [name, virtual] of Object.entries(entity.virtuals as Virtuals)) {
      properties.push({
        name,
        ...scalarTypeRef(virtual.type, true, this.names, [`${entity.name}${name}`]),
        annotations: [computed, ...fieldAnnotations(virtual)],
      });
    }
    properties.push({
      name: RECORD_READ_ONLY,
      type: "Edm.String",
      collection: true,
      nullable: false,
      annotations: [computed, description("The names of the methods currently disabled for this record.")],
    });
    const { property, unique } = entity.naturalKey;
    return {
      kind: "entityType",
      name: entity.name,
      key: ["Guid"],
      properties,
      navigation,
      annotations: [
        ...described(entity.description),
        ...(unique && property !== "Guid" ? [alternateKeys([property])] : []),
        ...presentation(entity),
      ],
    };
  }

  #members(owner: string, fields: Readonly<Record<string, PersistedField>>, entity?: AnyEntity) {
    const properties: EdmProperty[] = [];
    const navigation: EdmNavigationProperty[] = [];
    const inverse = entity && this.model.owner(entity.name);
    for (const [name, field] of Object.entries(fields)) {
      const annotations = fieldAnnotations(field);
      switch (field.kind) {
        case "reference":
          annotations.push(...this.#valueHelp(name, field));
          navigation.push({
            name,
            type: this.names.qualified(field.target),
            collection: false,
            nullable: !field.required,
            ...(inverse?.inverse === name && { partner: inverse.collection }),
            annotations,
          });
          break;
        case "collection":
          navigation.push({
            name,
            type: this.names.qualified(field.target.name),
            collection: true,
            nullable: false,
            partner: field.inverse,
            onDelete: "Cascade",
            annotations,
          });
          break;
        case "complex":
          properties.push({
            name,
            type: this.names.qualified(this.#complexType(owner, name, field)),
            collection: false,
            nullable: true,
            annotations,
          });
          break;
        default:
          properties.push(this.#scalar(owner, name, field, annotations));
      }
    }
    return { properties, navigation };
  }

  /** the reference's value help, when it declares one and its target has a set to list */
  #valueHelp(navigation: string, field: ReferenceField): EdmAnnotation[] {
    const target = this.model.entity(field.target)!;
    // every entity has a set of its own (edm-container.ts), whose records a value help lists
    if (field.valueHelp === undefined) return [];
    return [
      valueList({
        navigation,
        collection: target.name,
        key: target.naturalKey.property,
        shown: field.valueHelp,
        searchable: searchColumns(target).length > 0,
      }),
    ];
  }

  #scalar(owner: string, name: string, field: ScalarField, annotations: EdmAnnotation[]): EdmProperty {
    // the key is given on create or assigned by the service, and never changes
    const key = field === builtInFields.Guid;
    const defaultValue = defaultOf(field);
    return {
      name,
      ...scalarTypeRef(field, !field.required && !key, this.names, [`${owner}${name}`]),
      ...(defaultValue !== undefined && { defaultValue }),
      annotations: [...(key ? [immutable] : field.readOnly ? [computed] : []), ...annotations],
    };
  }

  /** a complex field's type, named for the field unless that name is taken; one type per definition */
  #complexType(owner: string, name: string, field: ComplexField): string {
    const known = this.#complexNames.get(field);
    if (known !== undefined) return known;
    const typeName = this.names.free(`complex type ${owner}.${name}`, name, `${owner}${name}`);
    this.#complexNames.set(field, typeName);
    const { properties, navigation } = this.#members(typeName, field.fields);
    this.complexTypes.push({ kind: "complexType", name: typeName, properties, navigation, annotations: [] });
    return typeName;
  }
}
