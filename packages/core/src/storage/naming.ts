/**
 * How entity properties map to SQL names. One flat list of columns per entity, shared by the
 * table builder, the migration, the query compiler and bulk inserts, so a name is decided once.
 */

import type { PersistedField, ReferenceField, ScalarField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";

/** `SalesDescription` → `sales_description`, `SKU` → `sku`, `PriceLevel2` → `price_level2` */
export const snakeCase = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();

/**
 * `derive` worked out once per entity definition, which never changes: what every statement or
 * write asks of an entity (its table, columns, collections) costs a lookup after the first time.
 */
export function perEntity<T>(derive: (def: AnyEntity) => T): (def: AnyEntity) => T {
  const derived = new WeakMap<AnyEntity, T>();
  return (def) => {
    if (derived.has(def)) return derived.get(def) as T;
    const value = derive(def);
    derived.set(def, value);
    return value;
  };
}

/** a name as an SQL identifier: quoted, any quote in it doubled */
export const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** a text as an SQL string literal, for DDL, which takes no parameters */
export const quoteLiteral = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** an entity's table */
export const tableName = perEntity((def): string => def.table ?? snakeCase(def.name));

/** Every table's tenant column; it leads the primary key and every index (architecture: Scale). */
export const TENANT_COLUMN = "tenant_id";

/**
 * Every entity row's version: 1 when inserted, one more on every update. What a workflow's
 * staged change was made against (commit conflicts) and what ETags carry.
 */
export const VERSION_COLUMN = "row_version";
/** the version a record is inserted at (the column's default), before any update */
export const FIRST_VERSION = 1;

export interface ColumnMapping {
  /** property path from the record root: `["Cost"]`, `["MailingAddress", "Country"]` */
  readonly path: readonly string[];
  readonly column: string;
  readonly field: ScalarField | ReferenceField;
}

const columnName = (name: string, field: ScalarField | ReferenceField) =>
  field.kind === "reference" ? `${snakeCase(name)}_guid` : snakeCase(name);

/**
 * The persisted columns of an entity in declaration order (`Guid` and `Title` first). Complex
 * members are flattened as `<complex>__<member>`; collections have no column (their items carry
 * the inverse reference).
 */
export const persistedColumns = perEntity((def): readonly ColumnMapping[] => {
  const columns: ColumnMapping[] = [];
  for (const [name, field] of Object.entries(def.fields as Record<string, PersistedField>)) {
    if (field.kind === "collection") continue;
    if (field.kind === "complex") {
      for (const [member, memberField] of Object.entries(field.fields)) {
        columns.push({
          path: [name, member],
          column: `${snakeCase(name)}__${columnName(member, memberField)}`,
          field: memberField,
        });
      }
      continue;
    }
    columns.push({ path: [name], column: columnName(name, field), field });
  }
  const seen = new Set<string>([TENANT_COLUMN, VERSION_COLUMN]);
  for (const c of columns) {
    if (seen.has(c.column)) {
      throw new Error(
        `${def.name}.${c.path.join(".")} maps to column "${c.column}", which another property already uses.`,
      );
    }
    seen.add(c.column);
  }
  return columns;
});

/** The column of a top-level scalar or reference property, or of a complex member path. */
export function columnOf(def: AnyEntity, path: readonly string[]): ColumnMapping | undefined {
  return persistedColumns(def).find((c) => c.path.length === path.length && c.path.every((p, i) => p === path[i]));
}
