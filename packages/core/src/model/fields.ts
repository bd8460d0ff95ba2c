/**
 * Field builders of the entity-definition DSL. Each returns plain data describing one property;
 * the record type, validation schema and table column are all derived from that data.
 */
import type { EntityDefinition } from "./entity.js";

interface Common<Req extends boolean> {
  readonly required: Req;
  readonly readOnly: boolean;
  readonly description?: string;
  /** a short caption for forms and column headings (`Common.Label` in `$metadata`) */
  readonly label?: string;
}

export interface TextField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "text";
  readonly maxLength: number;
  readonly minLength?: number;
  readonly default?: string;
  /** found by `$search` (free-text search over the entity's searchable properties, indexed) */
  readonly searchable?: boolean;
}
export interface IntegerField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "integer";
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
}
export interface DecimalField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "decimal";
  readonly precision: number;
  readonly scale: number;
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
}
export interface BooleanField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "boolean";
  readonly default?: boolean;
}
/** A calendar date, `YYYY-MM-DD` on the wire. */
export interface DateField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "date";
  readonly default?: string;
}
/** An instant, ISO 8601 with offset on the wire, `timestamptz` in storage. */
export interface DateTimeField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "datetime";
  readonly default?: string;
}
/** A time of day without date or zone, `hh:mm:ss[.ffffff]` on the wire (Edm.TimeOfDay), `time` in storage. */
export interface TimeOfDayField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "timeOfDay";
  readonly default?: string;
}
/**
 * A length of time in days, hours, minutes and seconds, ISO 8601 on the wire (`P1DT2H30M`,
 * Edm.Duration), `interval` in storage. Years and months are no fixed length, so they are not
 * part of it (as in OData's `durationValue`).
 */
export interface DurationField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "duration";
  readonly default?: string;
}
export interface GuidField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "guid";
}
export interface EnumField<V extends string = string, Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "enum";
  readonly values: readonly V[];
  readonly default?: V;
}

export type ScalarField =
  | TextField
  | IntegerField
  | DecimalField
  | BooleanField
  | DateField
  | DateTimeField
  | TimeOfDayField
  | DurationField
  | GuidField
  | EnumField;

/**
 * A reference to one record of another entity, stored as its Guid. The target is named rather
 * than passed, so entities can reference each other in any order (and in cycles) without lazy
 * thunks; `defineModel` checks that the name is registered.
 */
export interface ReferenceField<Req extends boolean = boolean> extends Common<Req> {
  readonly kind: "reference";
  readonly target: string;
  /**
   * What a person picks the target by: properties of the target shown beside its natural key in
   * a value help (`Common.ValueList` in `$metadata`), e.g. `["SalesDescription", "Price"]`
   */
  readonly valueHelp?: readonly string[];
}

/**
 * An owned collection (`Details`, `Uoms`): the items are records of `target`, whose reference
 * property `inverse` points back at the owner. Items live and die with their owner. The item
 * entity is passed itself (declared before its owner) so the owner's record type includes it.
 */
export interface CollectionField<E extends EntityDefinition<string, any, any> = EntityDefinition<string, any, any>>
  extends Common<false> {
  readonly kind: "collection";
  readonly target: E;
  readonly inverse: string;
  /** the most items one record may hold; without it, the host's bound (WriteLimits) */
  readonly maxItems?: number;
}

/** A nested value (`MailingAddress`): scalars and references stored in the owner's row. */
export interface ComplexField<F extends ComplexMembers = ComplexMembers> extends Common<false> {
  readonly kind: "complex";
  readonly fields: F;
}

export type ComplexMembers = Readonly<Record<string, ScalarField | ReferenceField>>;
export type PersistedField = ScalarField | ReferenceField | CollectionField | ComplexField;

/**
 * A virtual property, computed in TypeScript from persisted ones whenever it is selected.
 * `dependsOn` names the persisted properties the computation reads, so a read loads them even
 * when the client did not select them.
 */
export interface VirtualField<In = any, T extends ScalarField = ScalarField> {
  readonly kind: "virtual";
  readonly type: T;
  readonly dependsOn: readonly string[];
  readonly compute: (record: In) => unknown;
  readonly description?: string;
  readonly label?: string;
}

// ---------------------------------------------------------------- builders
// Return types use `NoInfer<Req>`: inside `entity({ fields })` the contextual type would otherwise
// widen `required: true` to `boolean` and make every property of the record type nullable.

type Opts<F, Req extends boolean> = Partial<Omit<F, "kind" | "required">> & { readonly required?: Req };

function common<Req extends boolean>(o: { required?: Req; readOnly?: boolean }) {
  return { required: (o.required ?? false) as Req, readOnly: o.readOnly ?? false };
}

export const text = <Req extends boolean = false>(o: Opts<TextField, Req> = {}): TextField<NoInfer<Req>> => ({
  ...o,
  kind: "text",
  maxLength: o.maxLength ?? 255,
  ...common(o),
});

export const integer = <Req extends boolean = false>(o: Opts<IntegerField, Req> = {}): IntegerField<NoInfer<Req>> => ({
  ...o,
  kind: "integer",
  ...common(o),
});

export const decimal = <Req extends boolean = false>(o: Opts<DecimalField, Req> = {}): DecimalField<NoInfer<Req>> => ({
  ...o,
  kind: "decimal",
  precision: o.precision ?? 18,
  scale: o.scale ?? 4,
  ...common(o),
});

export const boolean = <Req extends boolean = false>(o: Opts<BooleanField, Req> = {}): BooleanField<NoInfer<Req>> => ({
  ...o,
  kind: "boolean",
  ...common(o),
});

export const date = <Req extends boolean = false>(o: Opts<DateField, Req> = {}): DateField<NoInfer<Req>> => ({
  ...o,
  kind: "date",
  ...common(o),
});

export const datetime = <Req extends boolean = false>(
  o: Opts<DateTimeField, Req> = {},
): DateTimeField<NoInfer<Req>> => ({
  ...o,
  kind: "datetime",
  ...common(o),
});

export const timeOfDay = <Req extends boolean = false>(
  o: Opts<TimeOfDayField, Req> = {},
): TimeOfDayField<NoInfer<Req>> => ({
  ...o,
  kind: "timeOfDay",
  ...common(o),
});

export const duration = <Req extends boolean = false>(
  o: Opts<DurationField, Req> = {},
): DurationField<NoInfer<Req>> => ({
  ...o,
  kind: "duration",
  ...common(o),
});

export const guid = <Req extends boolean = false>(o: Opts<GuidField, Req> = {}): GuidField<NoInfer<Req>> => ({
  ...o,
  kind: "guid",
  ...common(o),
});

export const enumeration = <const V extends string, Req extends boolean = false>(
  values: readonly V[],
  o: Opts<EnumField<V>, Req> = {},
): EnumField<V, NoInfer<Req>> => ({ ...o, kind: "enum", values, ...common(o) });

export const reference = <Req extends boolean = false>(
  target: string,
  o: Opts<Omit<ReferenceField, "target">, Req> = {},
): ReferenceField<NoInfer<Req>> => ({ ...o, kind: "reference", target, ...common(o) });

export const collection = <E extends EntityDefinition<string, any, any>>(
  target: E,
  o: { inverse: string; maxItems?: number; description?: string; label?: string },
): CollectionField<E> => {
  if (o.maxItems !== undefined && !(Number.isInteger(o.maxItems) && o.maxItems >= 0)) {
    throw new Error(`collection(${target.name}): maxItems must be a whole number of items, not ${o.maxItems}.`);
  }
  return { ...o, kind: "collection", target, required: false, readOnly: false };
};

export const complex = <const F extends ComplexMembers>(
  fields: F,
  o: { description?: string; label?: string } = {},
): ComplexField<F> => ({
  ...o,
  kind: "complex",
  fields,
  required: false,
  readOnly: false,
});

export const virtual = <T extends ScalarField, In = any>(
  type: T,
  o: { dependsOn: readonly string[]; compute: (record: In) => unknown; description?: string; label?: string },
): VirtualField<In, T> => ({ kind: "virtual", type, ...o });
