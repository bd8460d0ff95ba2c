/**
 * `entity(name, config)`: the one place a team declares a business entity. Its table, its
 * validation schema, its record type and its API are all derived from what is written here.
 */

import type { MethodDeclaration, MethodOf } from "../methods/method.js";
import {
  type CollectionField,
  type ComplexField,
  type ComplexMembers,
  type EnumField,
  type GuidField,
  guid,
  type PersistedField,
  type ReferenceField,
  type ScalarField,
  type TextField,
  text,
  type VirtualField,
} from "./fields.js";
import type { EntityHooks } from "./hooks.js";
import type { FieldGroup, Presentation } from "./presentation.js";
import type { ReadRecord } from "./typed-read.js";

export type Fields = Readonly<Record<string, PersistedField>>;
export type Virtuals = Readonly<Record<string, VirtualField>>;
export type Methods = Readonly<Record<string, MethodDeclaration<any, any, any>>>;

/** Every entity has these two (spec 2.1). `Guid` is assigned by the server when not given. */
export const builtInFields = {
  Guid: guid({ readOnly: true }),
  Title: text({ maxLength: 400 }),
} as const;
export type BuiltInFields = typeof builtInFields;

// ---------------------------------------------------------------- record types, derived

type Nullable<T, Req> = Req extends true ? T : T | null;

export type ScalarValue<F> = F extends TextField
  ? string
  : F extends EnumField<infer V>
    ? V
    : F extends { kind: "integer" | "decimal" }
      ? number
      : F extends { kind: "boolean" }
        ? boolean
        : F extends { kind: "date" | "datetime" | "timeOfDay" | "duration" | "guid" }
          ? string
          : never;

export type FieldValue<F> = F extends ScalarField
  ? Nullable<ScalarValue<F>, F["required"]>
  : F extends ReferenceField
    ? Nullable<string, F["required"]>
    : F extends ComplexField<infer M>
      ? ComplexValue<M>
      : F extends CollectionField<infer E>
        ? RecordOf<E>[]
        : never;

export type ComplexValue<M extends ComplexMembers> = { -readonly [K in keyof M]: FieldValue<M[K]> };

/** The persisted properties of a set of fields, as a record (references as Guids). */
export type PersistedRecord<F extends Fields> = { -readonly [K in keyof F]: FieldValue<F[K]> } & {
  Guid: string;
  Title: string | null;
};

export type VirtualValues<V extends Virtuals> = {
  -readonly [K in keyof V]?: V[K] extends VirtualField<any, infer T> ? ScalarValue<T> | null : never;
};

/** The full record type of an entity definition: persisted properties plus (optional) virtuals. */
export type RecordOf<E> =
  E extends EntityDefinition<string, infer F, infer V, any> ? PersistedRecord<F> & VirtualValues<V> : never;

/** an entity's methods as its definition holds them: each one's subscribers see the entity's record type */
export type EntityMethods<M extends Methods, Rec> = { readonly [K in keyof M]: MethodOf<M[K], Rec> };

// ---------------------------------------------------------------- definition

export interface NaturalKey<K extends string = string> {
  readonly property: K;
  /**
   * Unique per tenant by default. A non-unique natural key is allowed (a name, say); a write that
   * references it by a value held by several records is rejected as `ReferenceAmbiguous`.
   */
  readonly unique: boolean;
}

export interface EntityDefinition<
  Name extends string = string,
  F extends Fields = Fields,
  V extends Virtuals = Virtuals,
  M extends Methods = Methods,
> extends Presentation {
  readonly kind: "entity";
  readonly name: Name;
  readonly description?: string;
  /** declared fields plus the built-in `Guid` and `Title` */
  readonly fields: F & BuiltInFields;
  readonly virtuals: V;
  readonly naturalKey: NaturalKey<Extract<keyof F, string> | "Guid" | "Title">;
  /** derives `Title` on save when the write does not set it */
  readonly title?: (record: PersistedRecord<F>) => string;
  readonly hooks: EntityHooks<PersistedRecord<F>>;
  /** table name; defaults to the snake_case entity name */
  readonly table?: string;
  /**
   * custom methods (spec 4.8), exposed at `/api/{Entity}(…)/{Name}` and `/api/{Entity}/{Name}`;
   * `model.subscribe(Entity.methods.Name, …)` gives their subscribers the entity's record type
   */
  readonly methods: EntityMethods<M, PersistedRecord<F> & VirtualValues<V>>;
  /** a virtual entity: no table of its own; saving its records is this function's work */
  readonly storage?: VirtualStorage;
  /** secondary indexes, each a list of property paths (`Status`, `MailingAddress/State`), always led by the tenant */
  readonly indexes: readonly (readonly string[])[];
  /** what the change log keeps of the entity's changes (EntityConfig.changeLog) */
  readonly changeLog: ChangeLogDetail;
}

/**
 * What the change log keeps of a change besides the record, its kind, who and when: `names`, the
 * names of the properties an update changed; `values`, their new values too (and a created
 * record's), kept as long as the log keeps the change (CHANGE_LOG_RETENTION) and shown in the
 * record's history.
 */
export type ChangeLogDetail = "names" | "values";

/** what a virtual entity's `save` may do: write real records through the full write pipeline */
export interface VirtualSaveContext {
  /** creates one record from a body as a client would send it; resolves to its Guid */
  readonly create: (entity: string, body: Record<string, unknown>) => Promise<string>;
  /**
   * The bulk form of `create`: many records of one entity through the pipeline as one set (one
   * natural-key lookup per target entity and one insert per table for all of them). Resolves to
   * their Guids in order; the first record that fails rejects it, and none is stored.
   */
  readonly createAll: (entity: string, bodies: readonly Record<string, unknown>[]) => Promise<string[]>;
  readonly read: ReadRecord;
}

/**
 * How a virtual entity (spec 4.6 rule 6) is stored: it has no table; its records are validated,
 * run through business logic and staged like any other, and `save` turns them into real data
 * when they are written (at once on a plain request, at commit in a workflow).
 */
export interface VirtualStorage {
  readonly save: (records: readonly Record<string, unknown>[], ctx: VirtualSaveContext) => Promise<void>;
}

/**
 * a property path a list column or a form field can name: a property (virtual ones too), or one
 * step further through a reference or into a complex property (`SellToCustomer/Name`)
 */
export type PresentationPath<F extends Fields, V extends Virtuals> =
  | Extract<keyof F | keyof V, string>
  | "Guid"
  | "Title"
  | `${Extract<keyof F, string>}/${string}`;

export interface EntityConfig<F extends Fields, V extends Virtuals, M extends Methods = Methods> {
  readonly description?: string;
  /** the entity's name for a person, singular (`Sales order`): `Common.Label`, `UI.HeaderInfo` */
  readonly label?: string;
  /** the plural (`Sales orders`), a list's title; defaults to the label */
  readonly pluralLabel?: string;
  /** a list's columns (`UI.LineItem`); without it a client shows the natural key, the title and a few persisted properties */
  readonly lineItem?: readonly NoInfer<PresentationPath<F, V>>[];
  /** an object page's groups of fields, in order (`UI.FieldGroup`, qualified by the key) */
  readonly fieldGroups?: Readonly<
    Record<string, Omit<FieldGroup, "fields"> & { readonly fields: readonly NoInfer<PresentationPath<F, V>>[] }>
  >;
  readonly naturalKey: (Extract<keyof F, string> | "Guid") | { property: Extract<keyof F, string>; unique?: boolean };
  readonly fields: F;
  readonly virtuals?: V & { readonly [K in keyof V]: VirtualField<PersistedRecord<F>> };
  readonly title?: (record: PersistedRecord<F>) => string;
  readonly hooks?: EntityHooks<PersistedRecord<F>>;
  readonly table?: string;
  readonly methods?: M;
  readonly storage?: VirtualStorage;
  /**
   * Secondary indexes for what the entity's queries and methods filter and sort by: each one a
   * persisted property (a reference, or a complex member as `Complex/Member`) or a list of them
   * for a composite index. `migrate` creates them, always led by the tenant.
   */
  readonly indexes?: readonly (IndexPath<F> | readonly IndexPath<F>[])[];
  /**
   * What the change log keeps of the entity's changes: `"names"` (the default) the names of the
   * properties an update changed, `"values"` also their new values and those of a created record.
   * Values stay in the log for its retention and show in the record's history: keep them for
   * entities whose history readers may see them (prices, statuses), not for personal data.
   */
  readonly changeLog?: ChangeLogDetail;
}

/** a property path an index can name: a top-level property or a member of a complex property */
export type IndexPath<F extends Fields> = Extract<keyof F, string> | `${Extract<keyof F, string>}/${string}` | "Title";

const reserved = new Set(["Guid", "Title", "RecordReadOnly", "__proto__", "constructor", "prototype"]);
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Declares an entity.
 *
 * @example
 * const Product = entity("Product", {
 *   naturalKey: "SKU",
 *   fields: {
 *     SKU: text({ required: true, maxLength: 64 }),
 *     Cost: decimal({ precision: 18, scale: 4, min: 0 }),
 *     Uoms: collection(ProductUom, { inverse: "Product" }),
 *   },
 * });
 * type ProductRecord = RecordOf<typeof Product>;
 */
export function entity<
  const Name extends string,
  const F extends Fields,
  const V extends Virtuals = {},
  const M extends Methods = {},
>(name: Name, config: EntityConfig<F, V, M>): EntityDefinition<Name, F, V, M> {
  if (!identifier.test(name)) throw new Error(`Entity name "${name}" is not an identifier.`);
  for (const key of [...Object.keys(config.fields), ...Object.keys(config.virtuals ?? {})]) {
    if (!identifier.test(key)) throw new Error(`${name}.${key}: property names must be identifiers.`);
    if (reserved.has(key)) throw new Error(`${name}.${key}: "${key}" is built in or reserved; choose another name.`);
  }
  for (const key of Object.keys(config.methods ?? {})) {
    if (!identifier.test(key)) throw new Error(`${name}.${key}: method names must be identifiers.`);
    if (key in config.fields || key in (config.virtuals ?? {}) || reserved.has(key)) {
      throw new Error(`${name}.${key}: a method cannot share its name with a property.`);
    }
  }
  for (const [key, v] of Object.entries(config.virtuals ?? {})) {
    if (key in config.fields) throw new Error(`${name}.${key} is declared both as a field and as a virtual.`);
    for (const dep of v.dependsOn) {
      if (!(dep in config.fields) && dep !== "Guid" && dep !== "Title") {
        throw new Error(`${name}.${key} depends on "${dep}", which is not a persisted field of ${name}.`);
      }
    }
  }
  if (config.storage !== undefined) {
    for (const [key, field] of Object.entries(config.fields)) {
      if (field.kind === "collection") throw new Error(`${name}.${key}: a virtual entity has no collections.`);
    }
  }
  const indexes = (config.indexes ?? []).map((index) => {
    const paths = typeof index === "string" ? [index] : [...index];
    if (paths.length === 0) throw new Error(`${name}: an index needs at least one property.`);
    for (const path of paths) {
      const [top, member, ...rest] = path.split("/");
      const field = (config.fields as Record<string, Fields[string]>)[top!];
      const target =
        top === "Title"
          ? builtInFields.Title
          : field?.kind === "complex" && member !== undefined
            ? (field.fields as Record<string, Fields[string]>)[member]
            : member === undefined
              ? field
              : undefined;
      if (target === undefined || rest.length > 0 || target.kind === "collection" || target.kind === "complex") {
        throw new Error(
          `${name}: index on "${path}": name a persisted property, a reference or a complex member (Complex/Member).`,
        );
      }
    }
    return paths;
  });
  if (config.storage !== undefined && indexes.length > 0)
    throw new Error(`${name}: a virtual entity has no table to index.`);
  const nk = typeof config.naturalKey === "string" ? { property: config.naturalKey } : config.naturalKey;
  const nkField = nk.property === "Guid" ? builtInFields.Guid : config.fields[nk.property];
  if (nkField === undefined) throw new Error(`${name}: natural key "${nk.property}" is not a field.`);
  if (nkField.kind === "collection" || nkField.kind === "complex" || nkField.kind === "reference") {
    throw new Error(`${name}: natural key "${nk.property}" must be a scalar field.`);
  }
  const def: EntityDefinition<Name, F, V, M> = {
    kind: "entity",
    name,
    fields: { ...builtInFields, ...config.fields },
    virtuals: (config.virtuals ?? {}) as V,
    naturalKey: { property: nk.property, unique: "unique" in nk ? (nk.unique ?? true) : true },
    hooks: config.hooks ?? {},
    // the declarations themselves: their record type is the compiler's alone
    methods: (config.methods ?? {}) as EntityMethods<M, PersistedRecord<F> & VirtualValues<V>>,
    indexes,
    changeLog: config.changeLog ?? "names",
    ...(config.storage !== undefined && { storage: config.storage }),
    ...(config.description !== undefined && { description: config.description }),
    ...(config.label !== undefined && { label: config.label }),
    ...(config.pluralLabel !== undefined && { pluralLabel: config.pluralLabel }),
    ...(config.lineItem !== undefined && { lineItem: [...config.lineItem] }),
    ...(config.fieldGroups !== undefined && { fieldGroups: config.fieldGroups }),
    ...(config.title !== undefined && { title: config.title }),
    ...(config.table !== undefined && { table: config.table }),
  };
  return def;
}

export type { GuidField };
