/**
 * Conversion between records (nested, by property name) and table rows (flat, by column), and
 * the SQL values each column type travels as. Decimals travel as exact decimal strings, so a
 * value is never rounded on its way to PostgreSQL.
 */
import type { PersistedField, ReferenceField, ScalarField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";
import { intervalInput } from "./interval-text.js";
import { type ColumnMapping, perEntity, persistedColumns } from "./naming.js";

const get = (record: Record<string, unknown>, path: readonly string[]): unknown => {
  let value: unknown = record;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
};

/** the value a column stores for a record value */
export function toColumnValue(field: ScalarField | ReferenceField, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (field.kind === "decimal") return typeof value === "number" ? exactDecimal(value) : String(value);
  if (field.kind === "duration") return intervalInput(String(value));
  return value;
}

/** a JS number as the exact decimal string of its shortest round-trip form, never `1e-7` */
export function exactDecimal(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
}

/** the value a record carries for a column value read back as text */
export function fromColumnValue(field: ScalarField | ReferenceField, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.kind === "decimal" || (field.kind === "integer" && typeof value === "string")) return Number(value);
  return value;
}

/** the value column `c` stores for a record; undefined when the record does not set it */
export function columnValue(record: Record<string, unknown>, c: ColumnMapping): unknown {
  const value = get(record, c.path);
  return value === undefined ? undefined : toColumnValue(c.field, value);
}

/** the columns a record sets, with their values; `undefined` properties are left out */
export function recordColumns(def: AnyEntity, record: Record<string, unknown>): Map<ColumnMapping, unknown> {
  const out = new Map<ColumnMapping, unknown>();
  for (const c of persistedColumns(def)) {
    const value = columnValue(record, c);
    if (value !== undefined) out.set(c, value);
  }
  return out;
}

/** sets a value at a one- or two-step property path (complex members), creating the nested object */
export function assignPath(record: Record<string, unknown>, path: readonly string[], value: unknown): void {
  if (path.length === 1) {
    record[path[0]!] = value;
    return;
  }
  const outer = path[0]!;
  record[outer] ??= {};
  (record[outer] as Record<string, unknown>)[path[1]!] = value;
}

/** a row (selected as `persistedColumns` with their column names) as a nested record */
export function rowToRecord(def: AnyEntity, row: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const c of persistedColumns(def)) {
    assignPath(record, c.path, fromColumnValue(c.field, row[c.column]));
  }
  return record;
}

/**
 * The properties of an entity where a value of `kind` can sit: fields of that kind, complex
 * values with a member of it, and owned collections (their items may hold one). A write walks
 * only these for every record, not every field.
 */
export const fieldsHolding = (kind: "reference" | "decimal") =>
  perEntity((def) =>
    Object.entries(def.fields as Record<string, PersistedField>).filter(
      ([, field]) =>
        field.kind === kind ||
        field.kind === "collection" ||
        (field.kind === "complex" && Object.values(field.fields).some((member) => member.kind === kind)),
    ),
  );

/** the owned collections of an entity: property name and field */
export const collectionsOf = perEntity((def) =>
  Object.entries(def.fields as Record<string, PersistedField>).flatMap(([name, field]) =>
    field.kind === "collection" ? [{ name, field }] : [],
  ),
);
