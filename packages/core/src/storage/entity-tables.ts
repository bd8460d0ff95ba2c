/**
 * Drizzle tables derived from entity definitions. Every table leads with `tenant_id` in its
 * primary key and indexes; natural keys are unique per tenant; references are indexed and carry
 * a tenant-scoped foreign key (a record can never point into another tenant); row-level security
 * is declared on the table itself.
 */
import { createHash } from "node:crypto";
import {
  bigint,
  boolean,
  date,
  foreignKey,
  index,
  integer,
  interval,
  numeric,
  type PgColumnBuilderBase,
  type PgTableWithColumns,
  pgPolicy,
  pgTable,
  primaryKey,
  text,
  time,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from "drizzle-orm/pg-core";
import type { ReferenceField, ScalarField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import { intervalInput } from "./interval-text.js";
import { columnOf, FIRST_VERSION, persistedColumns, TENANT_COLUMN, tableName, VERSION_COLUMN } from "./naming.js";
import { tenantColumn } from "./tenant-column.js";
import { APP_ROLE, tenantPolicy } from "./tenant-policy.js";

export type EntityTable = PgTableWithColumns<any>;

function columnBuilder(name: string, field: ScalarField | ReferenceField): PgColumnBuilderBase {
  switch (field.kind) {
    case "text": {
      const col = field.maxLength > 10_485_760 ? text(name) : varchar(name, { length: field.maxLength });
      return field.default !== undefined ? col.default(field.default) : col;
    }
    case "enum":
      return field.default !== undefined ? text(name).default(field.default) : text(name);
    case "integer":
      return field.default !== undefined ? integer(name).default(field.default) : integer(name);
    case "decimal": {
      const col = numeric(name, { precision: field.precision, scale: field.scale });
      return field.default !== undefined ? col.default(String(field.default)) : col;
    }
    case "boolean":
      return field.default !== undefined ? boolean(name).default(field.default) : boolean(name);
    case "date":
      return field.default !== undefined ? date(name).default(field.default) : date(name);
    case "datetime":
      return timestamp(name, { withTimezone: true, mode: "string" });
    case "timeOfDay":
      // microseconds, as timestamptz keeps them
      return field.default !== undefined ? time(name).default(field.default) : time(name);
    case "duration":
      return field.default !== undefined ? interval(name).default(intervalInput(field.default)) : interval(name);
    case "guid":
    case "reference":
      return uuid(name);
  }
}

const cache = new WeakMap<AnyEntity, EntityTable>();

/** PostgreSQL cuts names at 63 bytes; a longer one keeps a readable start and a hash of the whole */
const shortName = (name: string): string =>
  name.length <= 63 ? name : `${name.slice(0, 54)}_${createHash("sha1").update(name).digest("hex").slice(0, 8)}`;

/** the declared secondary indexes of an entity (`indexes`): name and columns, tenant first */
export function declaredIndexes(def: AnyEntity): { readonly name: string; readonly columns: readonly string[] }[] {
  return def.indexes.map((paths) => {
    const columns = paths.map((path) => columnOf(def, path.split("/"))!.column);
    return { name: shortName(`${tableName(def)}_${columns.join("_")}_ix`), columns: [TENANT_COLUMN, ...columns] };
  });
}

/** the tenant column and the persisted columns of an entity, keyed by SQL name */
export function columnBuilders(def: AnyEntity): Record<string, PgColumnBuilderBase> {
  const columns: Record<string, PgColumnBuilderBase> = { [TENANT_COLUMN]: tenantColumn(TENANT_COLUMN).notNull() };
  for (const c of persistedColumns(def)) {
    columns[c.column] = c.column === "guid" ? uuid("guid").notNull() : columnBuilder(c.column, c.field);
  }
  return columns;
}

/**
 * The index of each of an entity's references, `(tenant, reference)`: what a foreign-key check of
 * a delete in the target and a join by the reference look up. `coveredBy` names the declared index
 * that leads with the reference (`["SellToCustomer", "Status"]`), if one does: that index serves
 * the same lookups, and a second B-tree would only cost every insert and update of the table.
 */
export function referenceIndexes(
  def: AnyEntity,
): { readonly name: string; readonly column: string; readonly coveredBy: string | undefined }[] {
  const leading = new Map(declaredIndexes(def).map((ix) => [ix.columns[1], ix.name]));
  return persistedColumns(def)
    .filter((c) => c.field.kind === "reference")
    .map((c) => ({ name: `${tableName(def)}_${c.column}_idx`, column: c.column, coveredBy: leading.get(c.column) }));
}

/** The drizzle table of an entity; columns are keyed by their SQL name. */
export function entityTable(model: Model, def: AnyEntity): EntityTable {
  const cached = cache.get(def);
  if (cached) return cached;
  const name = tableName(def);
  const columns = {
    ...columnBuilders(def),
    [VERSION_COLUMN]: bigint(VERSION_COLUMN, { mode: "number" }).notNull().default(FIRST_VERSION),
  };
  const nk = columnOf(def, [def.naturalKey.property]);
  const references = persistedColumns(def).filter((c) => c.field.kind === "reference");
  const owner = model.owner(def.name);
  // a covered reference's index is left out, the name of the others decided in one place
  const ownIndexes = new Map(
    referenceIndexes(def).flatMap((ix) => (ix.coveredBy === undefined ? [[ix.column, ix.name] as const] : [])),
  );
  const table = pgTable(name, columns, (t: Record<string, any>) => [
    primaryKey({ name: `${name}_pkey`, columns: [t[TENANT_COLUMN], t.guid] }),
    ...(nk && nk.column !== "guid"
      ? [(def.naturalKey.unique ? uniqueIndex : index)(`${name}_nk`).on(t[TENANT_COLUMN], t[nk.column])]
      : []),
    ...references.flatMap((c) => {
      const target = model.entity((c.field as ReferenceField).target)!;
      // the collection's inverse reference cascades: items live and die with their owner
      const cascade = owner !== undefined && c.path.length === 1 && c.path[0] === owner.inverse;
      return [
        ...(ownIndexes.has(c.column) ? [index(ownIndexes.get(c.column)!).on(t[TENANT_COLUMN], t[c.column])] : []),
        foreignKey({
          name: `${name}_${c.column}_fk`,
          columns: [t[TENANT_COLUMN], t[c.column]],
          foreignColumns: [entityTable(model, target)[TENANT_COLUMN] as any, entityTable(model, target).guid as any],
        }).onDelete(cascade ? "cascade" : "no action"),
      ];
    }),
    ...declaredIndexes(def).map((ix) => index(ix.name).on(...(ix.columns.map((c) => t[c]) as [any, ...any[]]))),
    pgPolicy(`${name}_tenant`, { as: "permissive", for: "all", to: APP_ROLE, ...tenantPolicy(TENANT_COLUMN) }),
  ]).enableRLS() as unknown as EntityTable;
  cache.set(def, table);
  return table;
}

/** Tables of every entity of the model, in registration order. */
export const modelTables = (model: Model): EntityTable[] =>
  [...model.entities.values()].filter((def) => def.storage === undefined).map((def) => entityTable(model, def));
