/**
 * The SQL select list of a read and the matching row serializer. Rows come back flat (`c0, c1,
 * …`) and are written straight into JSON text: decimals keep PostgreSQL's exact text, nothing is
 * parsed and re-serialized, and virtual properties are computed only when selected.
 */
import { assignPath, type ColumnMapping, fromColumnValue } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import type { SelectedProperty } from "../bind/read-query.js";

export interface SerializeOptions {
  /** IEEE754Compatible=true: decimals as JSON strings (api-conventions: Numbers) */
  readonly ieee754Compatible: boolean;
}

export interface SelectColumns {
  readonly columns: SQL;
  /** writes one row as a JSON object */
  readonly serialize: (row: Record<string, unknown>) => string;
}

const columnExpr = (table: string, c: ColumnMapping): SQL => {
  const ref = sql`${sql.identifier(table)}.${sql.identifier(c.column)}`;
  // ISO 8601 in UTC with microseconds, the same on both drivers
  return c.field.kind === "datetime" ? sql`to_char(${ref} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : ref;
};

type Writer = (value: unknown) => string;

const json: Writer = (v) => (v === null || v === undefined ? "null" : JSON.stringify(v));

function writerFor(c: ColumnMapping, options: SerializeOptions): Writer {
  switch (c.field.kind) {
    case "decimal":
      // PostgreSQL's numeric text is already a valid JSON number, exactly as stored
      return options.ieee754Compatible ? json : (v) => (v === null || v === undefined ? "null" : String(v));
    case "integer":
    case "boolean":
      return (v) => (v === null || v === undefined ? "null" : String(v));
    default:
      return json;
  }
}

export function selectColumns(
  table: string,
  select: readonly SelectedProperty[],
  options: SerializeOptions,
): SelectColumns {
  const exprs: SQL[] = [];
  const aliasOf = new Map<string, string>();
  const alias = (c: ColumnMapping): string => {
    let a = aliasOf.get(c.column);
    if (a === undefined) {
      a = `c${aliasOf.size}`;
      aliasOf.set(c.column, a);
      exprs.push(sql`${columnExpr(table, c)} AS ${sql.identifier(a)}`);
    }
    return a;
  };
  const parts: ((row: Record<string, unknown>) => string)[] = select.map((p) => {
    const key = JSON.stringify(p.name);
    switch (p.kind) {
      case "column": {
        const a = alias(p.column);
        const write = writerFor(p.column, options);
        return (row) => `${key}:${write(row[a])}`;
      }
      case "complex": {
        const members = p.members.map((m) => ({
          key: JSON.stringify(m.path[1]),
          a: alias(m),
          write: writerFor(m, options),
        }));
        return (row) => `${key}:{${members.map((m) => `${m.key}:${m.write(row[m.a])}`).join(",")}}`;
      }
      case "virtual": {
        const deps = p.dependsOn.map((c) => ({ c, a: alias(c) }));
        return (row) => {
          const record: Record<string, unknown> = {};
          for (const { c, a } of deps) assignPath(record, c.path, fromColumnValue(c.field, row[a]));
          return `${key}:${json(p.field.compute(record) ?? null)}`;
        };
      }
      case "recordReadOnly":
        // methods and their DisableIf conditions arrive with custom methods; until then none is disabled
        return () => `${key}:[]`;
      default:
        return p satisfies never;
    }
  });
  return {
    columns: sql.join(exprs, sql`, `),
    serialize: (row) => `{${parts.map((part) => part(row)).join(",")}}`,
  };
}
