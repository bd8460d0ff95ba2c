/**
 * The standard OASIS vocabularies `$metadata` uses, and the few annotations it writes with them.
 * Each term is spelled here once; the builders keep their record shapes as the vocabularies
 * define them (Org.OData.Core.V1, Org.OData.Capabilities.V1).
 */
import type { AnnotationValue, EdmAnnotation, VocabularyReference } from "./edm.js";

const vocabulary = (name: string, alias: string): VocabularyReference => {
  const base = `https://oasis-tcs.github.io/odata-vocabularies/vocabularies/${name}`;
  return { namespace: name, alias, xml: `${base}.xml`, json: `${base}.json` };
};

export const vocabularies: readonly VocabularyReference[] = [
  vocabulary("Org.OData.Core.V1", "Core"),
  vocabulary("Org.OData.Capabilities.V1", "Capabilities"),
];

const string = (value: string): AnnotationValue => ({ kind: "string", value });
const propertyPaths = (paths: readonly string[]): AnnotationValue => ({
  kind: "collection",
  items: paths.map((value) => ({ kind: "propertyPath", value })),
});
const record = (properties: Record<string, AnnotationValue>): AnnotationValue => ({ kind: "record", properties });

export const description = (text: string): EdmAnnotation => ({ term: "Core.Description", value: string(text) });

/** computed by the service; a client never writes it */
export const computed: EdmAnnotation = { term: "Core.Computed", value: { kind: "bool", value: true } };

/** settable when the record is created, never changed afterwards */
export const immutable: EdmAnnotation = { term: "Core.Immutable", value: { kind: "bool", value: true } };

/** a unique property that identifies a record as well as its key does (Core.AlternateKeys) */
export const alternateKeys = (properties: readonly string[]): EdmAnnotation => ({
  term: "Core.AlternateKeys",
  value: {
    kind: "collection",
    items: properties.map((name) =>
      record({
        Key: {
          kind: "collection",
          items: [record({ Name: { kind: "propertyPath", value: name }, Alias: string(name) })],
        },
      }),
    ),
  },
});

/** a parameter a call may leave out, with the value it then takes (Core.OptionalParameter) */
export const optionalParameter = (defaultValue: string | undefined): EdmAnnotation => ({
  term: "Core.OptionalParameter",
  value: record(defaultValue === undefined ? {} : { DefaultValue: string(defaultValue) }),
});

/** properties that `$filter` and `$orderby` refuse, as the two Capabilities records */
const filterAndSort = (paths: readonly string[]) => ({
  FilterRestrictions: record({ NonFilterableProperties: propertyPaths(paths) }),
  SortRestrictions: record({ NonSortableProperties: propertyPaths(paths) }),
});

/** `$search` refused: the entity declares no searchable property */
const notSearchable = record({ Searchable: { kind: "bool", value: false } });

/** what `$filter`, `$orderby` and `$search` refuse on one entity */
export interface Restricted {
  /** properties computed on read */
  readonly properties: readonly string[];
  readonly searchable: boolean;
}

/**
 * Every record has an ETag, from a version the service keeps (api-conventions: ETags), and
 * writes honour `If-Match` (Core.OptimisticConcurrency, OData Protocol 4.01 §11.4.1.1). The
 * collection of properties the ETag is computed from is empty: the version is no property of
 * the entity (and a workflow's ETag also counts its stagings), which the term allows ("the
 * service won't tell how it computes the ETag").
 */
const optimisticConcurrency: EdmAnnotation = {
  term: "Core.OptimisticConcurrency",
  value: { kind: "collection", items: [] },
};

/** The restrictions of an entity set: its own properties, and `$search` where it has nothing searchable */
export function queryRestrictions(own: Restricted): EdmAnnotation[] {
  const { FilterRestrictions, SortRestrictions } = filterAndSort(own.properties);
  return [
    optimisticConcurrency,
    { term: "Capabilities.FilterRestrictions", value: FilterRestrictions },
    { term: "Capabilities.SortRestrictions", value: SortRestrictions },
    ...(own.searchable ? [] : [{ term: "Capabilities.SearchRestrictions", value: notSearchable }]),
  ];
}

const bool = (value: boolean): AnnotationValue => ({ kind: "bool", value });

/**
 * Change tracking on a set (Capabilities.ChangeTracking, OData 4.01 Protocol §11.3): a tracked read
 * may filter by `filterable` and expand `expandable`, the owned collections whose items' changes
 * count as their owner's (a referenced record is tracked through its own set). The vocabulary
 * says that a client may assume neither for properties the record leaves out.
 */
export const changeTracking = (filterable: readonly string[], expandable: readonly string[]): EdmAnnotation => ({
  term: "Capabilities.ChangeTracking",
  value: record({
    Supported: bool(true),
    FilterableProperties: propertyPaths(filterable),
    ExpandableProperties: {
      kind: "collection",
      items: expandable.map((value) => ({ kind: "navigationPropertyPath", value })),
    },
  }),
});

/**
 * A virtual entity's set (spec 4.6 rule 6): a create hands the record to the entity's storage and
 * nothing of it is kept, so no record can be read by key, updated or deleted (a workflow stages
 * them, but a plain OData client never sees one). Said with the Capabilities restrictions that
 * clients and converters (odata-openapi) read.
 */
export const virtualSetRestrictions: readonly EdmAnnotation[] = [
  {
    term: "Capabilities.ReadRestrictions",
    value: record({ ReadByKeyRestrictions: record({ Readable: bool(false) }) }),
  },
  { term: "Capabilities.UpdateRestrictions", value: record({ Updatable: bool(false) }) },
  { term: "Capabilities.DeleteRestrictions", value: record({ Deletable: bool(false) }) },
];

// ---------------------------------------------------------------- presentation (issue 41)
// SAP's Common and UI vocabularies, the ones Fiori elements and other generic clients read: the
// OASIS vocabularies have no terms for labels, list columns, field groups or value helps.

const sapVocabulary = (name: string, alias: string): VocabularyReference => {
  const base = `https://sap.github.io/odata-vocabularies/vocabularies/${name}`;
  return { namespace: `com.sap.vocabularies.${name}.v1`, alias, xml: `${base}.xml`, json: `${base}.json` };
};

/** referenced by a document only when it uses one of their terms */
export const presentationVocabularies: readonly VocabularyReference[] = [
  sapVocabulary("Common", "Common"),
  sapVocabulary("UI", "UI"),
];

/** a caption for a type, property or navigation property (Common.Label) */
export const label = (text: string): EdmAnnotation => ({ term: "Common.Label", value: string(text) });

const dataField = (path: string): AnnotationValue => ({
  kind: "record",
  type: "UI.DataField",
  properties: { Value: { kind: "path", value: path } },
});

const dataFields = (paths: readonly string[]): AnnotationValue => ({ kind: "collection", items: paths.map(dataField) });

/** the type's names for a person and what titles a record (UI.HeaderInfo): here always `Title` */
export const headerInfo = (typeName: string, plural: string): EdmAnnotation => ({
  term: "UI.HeaderInfo",
  value: record({ TypeName: string(typeName), TypeNamePlural: string(plural), Title: dataField("Title") }),
});

/** a list's columns (UI.LineItem) */
export const lineItem = (paths: readonly string[]): EdmAnnotation => ({
  term: "UI.LineItem",
  value: dataFields(paths),
});

/** one group of an object page's fields (UI.FieldGroup, qualified) */
export const fieldGroup = (
  qualifier: string,
  caption: string | undefined,
  paths: readonly string[],
): EdmAnnotation => ({
  term: "UI.FieldGroup",
  qualifier,
  value: record({ ...(caption !== undefined && { Label: string(caption) }), Data: dataFields(paths) }),
});

/**
 * How a person picks the target of a reference (Common.ValueList), on its navigation property:
 * the reference has no foreign-key property in the model, so the local value is the target's
 * natural key through the navigation property (`SellToCustomer/Id`), which is what a write may
 * send for the reference (spec 4.3), filled from the value list's key; the shown properties
 * come beside it.
 */
export const valueList = (settings: {
  readonly navigation: string;
  readonly collection: string;
  readonly key: string;
  readonly shown: readonly string[];
  readonly searchable: boolean;
}): EdmAnnotation => ({
  term: "Common.ValueList",
  value: record({
    CollectionPath: string(settings.collection),
    SearchSupported: bool(settings.searchable),
    Parameters: {
      kind: "collection",
      items: [
        {
          kind: "record",
          type: "Common.ValueListParameterInOut",
          properties: {
            LocalDataProperty: { kind: "propertyPath", value: `${settings.navigation}/${settings.key}` },
            ValueListProperty: string(settings.key),
          },
        },
        ...settings.shown.map(
          (name): AnnotationValue => ({
            kind: "record",
            type: "Common.ValueListParameterDisplayOnly",
            properties: { ValueListProperty: string(name) },
          }),
        ),
      ],
    },
  }),
});
