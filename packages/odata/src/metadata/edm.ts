/**
 * The entity data model of a service as plain data: what `$metadata` describes, built once from
 * the model (build-edm.ts) and rendered as CSDL XML (csdl-xml.ts) or CSDL JSON (csdl-json.ts).
 * Names follow OData CSDL 4.01; every type name here is namespace-qualified (`Edm.String`,
 * `bizdata.Product`).
 */

/** `4.0` unless a client asks for 4.01: SAP's generator reads any other Version as OData V2 */
export type EdmVersion = "4.0" | "4.01";

export interface EdmTypeRef {
  readonly type: string;
  readonly collection: boolean;
  /** for a collection: whether its items may be null */
  readonly nullable: boolean;
  readonly maxLength?: number;
  readonly precision?: number;
  readonly scale?: number;
}

/** an annotation's value (CSDL 14.4): constants, paths, collections and records */
export type AnnotationValue =
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "propertyPath"; readonly value: string }
  | { readonly kind: "navigationPropertyPath"; readonly value: string }
  /** a dynamic path (CSDL 14.5.12): the value at that path of the annotated instance */
  | { readonly kind: "path"; readonly value: string }
  | { readonly kind: "collection"; readonly items: readonly AnnotationValue[] }
  | {
      readonly kind: "record";
      /** the record's type, qualified by its vocabulary's alias (`UI.DataField`), where the term's type is abstract */
      readonly type?: string;
      readonly properties: Readonly<Record<string, AnnotationValue>>;
    };

/** a term applied to a model element, the term qualified by its vocabulary's alias (`Core.Computed`) */
export interface EdmAnnotation {
  readonly term: string;
  /** tells apart several applications of one term to one element (`UI.FieldGroup#Pricing`) */
  readonly qualifier?: string;
  readonly value: AnnotationValue;
}

interface Annotated {
  readonly annotations: readonly EdmAnnotation[];
}

export interface EdmProperty extends EdmTypeRef, Annotated {
  readonly name: string;
  readonly defaultValue?: string | number | boolean;
}

export interface EdmNavigationProperty extends Annotated {
  readonly name: string;
  readonly type: string;
  readonly collection: boolean;
  /** single-valued only; a collection is never null */
  readonly nullable: boolean;
  readonly partner?: string;
  /**
   * what deleting the record does to the records this property leads to: an owned collection's
   * items go with their owner (CSDL 4.01 §8.5 OnDelete)
   */
  readonly onDelete?: "Cascade";
}

export interface EdmStructure extends Annotated {
  readonly name: string;
  readonly properties: readonly EdmProperty[];
  readonly navigation: readonly EdmNavigationProperty[];
}

export interface EdmEntityType extends EdmStructure {
  readonly kind: "entityType";
  readonly key: readonly string[];
}

export interface EdmComplexType extends EdmStructure {
  readonly kind: "complexType";
}

export interface EdmEnumType {
  readonly kind: "enumType";
  readonly name: string;
  /** values 0, 1, … in this order */
  readonly members: readonly string[];
}

export type EdmType = EdmEntityType | EdmComplexType | EdmEnumType;

export interface EdmParameter extends EdmTypeRef, Annotated {
  readonly name: string;
}

/** a Function (Read method: GET, no side effects) or an Action (Modify method: POST) */
export interface EdmOperation extends Annotated {
  readonly kind: "function" | "action";
  readonly name: string;
  /** a bound operation's first parameter is the binding parameter */
  readonly bound: boolean;
  readonly parameters: readonly EdmParameter[];
  readonly returnType?: EdmTypeRef;
}

export interface EdmEntitySet extends Annotated {
  readonly name: string;
  readonly entityType: string;
  readonly bindings: readonly { readonly path: string; readonly target: string }[];
}

export interface EdmOperationImport {
  readonly kind: "function" | "action";
  readonly name: string;
  /** the qualified name of the unbound operation it imports */
  readonly operation: string;
  /** where the entities it returns live */
  readonly entitySet?: string;
  readonly includeInServiceDocument: boolean;
}

export interface EdmContainer {
  readonly name: string;
  readonly entitySets: readonly EdmEntitySet[];
  readonly imports: readonly EdmOperationImport[];
}

export interface EdmSchema {
  readonly namespace: string;
  /** the schema's `Alias`, when the model gives one */
  readonly alias?: string;
  readonly types: readonly EdmType[];
  readonly operations: readonly EdmOperation[];
  readonly container: EdmContainer;
}

/** a vocabulary the document's annotations use, referenced by the OASIS address of its XML and JSON forms */
export interface VocabularyReference {
  readonly namespace: string;
  readonly alias: string;
  readonly xml: string;
  readonly json: string;
}

export interface EdmDocument {
  readonly version: EdmVersion;
  readonly references: readonly VocabularyReference[];
  readonly schema: EdmSchema;
}
