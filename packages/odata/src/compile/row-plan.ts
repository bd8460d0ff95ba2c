/**
 * The select list of a read as flat columns (`c0, c1, …`) plus the function that writes one row
 * as response JSON. Top-level records and their expanded references are written in TypeScript
 * from the flat row; expanded collections arrive as JSON text from json-object.ts and are copied
 * in unchanged. Nothing is parsed and re-serialized unless a virtual property inside a
 * collection asks for it.
 */
import { assignPath, type ColumnMapping, disabledMethods, fromColumnValue, versionText } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import { valueTypeOf } from "../bind/bound-expr.js";
import type { ReadQuery } from "../bind/read-query.js";
import { compileExpr } from "./compile-expression.js";
import { controlText, type EntityOutput, writesControl } from "./control-info.js";
import { parseExactJson, writeExactJson } from "./exact-json.js";
import {
  collectionCount,
  collectionJson,
  featureSet,
  featuresColumn,
  finishVirtuals,
  needsFeatures,
  needsFinishing,
} from "./json-object.js";
import { rowValue, writerFor } from "./output-value.js";
import type { QueryScope } from "./query-scope.js";

type Row = Record<string, unknown>;
type Part = (row: Row) => string;

export interface RowPlan {
  readonly columns: SQL;
  readonly write: (row: Row) => string;
  /** the alias of the record's Guid column, null exactly when there is no record */
  readonly guidAlias: string;
  /** the alias of the record's version (its ETag, staged-view.ts) */
  readonly versionAlias: string;
}

class Columns {
  readonly list: SQL[] = [];
  private readonly byKey = new Map<string, string>();
  /** selects `value` once under a short alias; the same key gets the same alias */
  add(key: string, value: SQL): string {
    let alias = this.byKey.get(key);
    if (alias === undefined) {
      alias = `c${this.byKey.size}`;
      this.byKey.set(key, alias);
      this.list.push(sql`${value} AS ${sql.identifier(alias)}`);
    }
    return alias;
  }
}

function objectWriter(
  query: ReadQuery,
  scope: QueryScope,
  columns: Columns,
  options: EntityOutput,
): { write: Part; guid: string; version: () => string } {
  const column = (c: ColumnMapping) => {
    const type = valueTypeOf(c);
    return {
      alias: columns.add(`${scope.alias}.${c.column}`, rowValue(scope.column(scope.alias, c.column), type)),
      write: writerFor(type, options),
    };
  };
  const guid = column({ path: ["Guid"], column: "guid", field: { kind: "guid", required: false, readOnly: true } });
  const version = () => columns.add(`${scope.alias}.$version`, versionText(scope.alias));
  const parts: { key: string; part: Part }[] = query.select.map((p) => {
    const key = JSON.stringify(p.name);
    switch (p.kind) {
      case "column": {
        const { alias, write } = column(p.column);
        return { key: p.name, part: (row) => `${key}:${write(row[alias])}` };
      }
      case "complex": {
        // a member expanded as a reference (`MailingAddress/Country`) is written by its expansion
        const expanded = new Set(
          query.expand.flatMap((e) => (e.kind === "reference" && e.path[0] === p.name ? [e.path[1]] : [])),
        );
        const members = p.members
          .filter((m) => !expanded.has(m.path[1]))
          .map((m) => ({ key: JSON.stringify(m.path[1]), ...column(m) }));
        return {
          key: p.name,
          part: (row) => `${key}:{${members.map((m) => `${m.key}:${m.write(row[m.alias])}`).join(",")}}`,
        };
      }
      case "virtual": {
        const deps = p.dependsOn.map((c) => ({ c, alias: column(c).alias }));
        return {
          key: p.name,
          part: (row) => {
            const source: Row = {};
            for (const { c, alias } of deps) assignPath(source, c.path, fromColumnValue(c.field, row[alias]));
            const value = p.field.compute(source);
            return `${key}:${value === undefined ? "null" : JSON.stringify(value)}`;
          },
        };
      }
      case "computed": {
        const value = rowValue(compileExpr(p.expr, { scopes: new Map([[null, scope]]) }), p.expr.type);
        const alias = columns.add(`${scope.alias}.$compute.${p.name}`, value);
        const write = writerFor(p.expr.type, options);
        return { key: p.name, part: (row) => `${key}:${write(row[alias])}` };
      }
      case "recordReadOnly": {
        if (p.dependsOn.length === 0) return { key: p.name, part: () => `${key}:[]` };
        const deps = p.dependsOn.map((c) => ({ c, alias: column(c).alias }));
        const features = columns.add("$features", featuresColumn(scope));
        return {
          key: p.name,
          part: (row) => {
            const source: Row = {};
            for (const { c, alias } of deps) assignPath(source, c.path, fromColumnValue(c.field, row[alias]));
            return `${key}:${JSON.stringify(disabledMethods(p.model, p.entity, source, featureSet(row[features])))}`;
          },
        };
      }
      default:
        return p satisfies never;
    }
  });
  for (const e of query.expand) {
    if (e.kind === "collection") {
      const alias = columns.add(`${scope.alias}.$expand.${e.name}`, sql`${collectionJson(e, scope, options)}::text`);
      const key = JSON.stringify(e.name);
      const finish = needsFinishing(e.query);
      const features = needsFeatures(e.query) ? columns.add("$features", featuresColumn(scope)) : undefined;
      parts.push({
        key: e.name,
        part: finish
          ? (row) => {
              // numbers keep their text: a decimal is never rounded on the way through
              const items = parseExactJson(String(row[alias])) as Row[];
              for (const item of items) finishVirtuals(e.query, item, featureSet(row[features!]));
              return `${key}:${writeExactJson(items)}`;
            }
          : (row) => `${key}:${row[alias]}`,
      });
      if (e.query.count) {
        const countAlias = columns.add(`${scope.alias}.$count.${e.name}`, collectionCount(e, scope));
        const countKey = JSON.stringify(`${e.name}@odata.count`);
        parts.push({ key: `${e.name}@odata.count`, part: (row) => `${countKey}:${row[countAlias]}` });
      }
      continue;
    }
    const target = scope.at(scope.navigate([e.navigation]), e.navigation.target);
    const nested = objectWriter(e.query, target, columns, options);
    const key = JSON.stringify(e.path.at(-1));
    const part: Part = (row) => `${key}:${row[nested.guid] === null ? "null" : nested.write(row)}`;
    if (e.path.length === 1) {
      parts.push({ key: e.path[0]!, part });
      continue;
    }
    // a reference inside a complex value is written inside that value's object
    const complex = parts.find((p) => p.key === e.path[0]);
    if (complex) {
      const outer = complex.part;
      complex.part = (row) => {
        const object = outer(row);
        return `${object.slice(0, -1)}${object.endsWith("{}") ? "" : ","}${part(row)}}`;
      };
    } else {
      const outerKey = JSON.stringify(e.path[0]);
      parts.push({ key: e.path[0]!, part: (row) => `${outerKey}:{${part(row)}}` });
    }
  }
  const list = parts.map((p) => p.part);
  // written for every row of every page: one string, no arrays
  const properties = (row: Row) => {
    let text = "";
    for (let i = 0; i < list.length; i++) text += i === 0 ? list[i]!(row) : `,${list[i]!(row)}`;
    return text;
  };
  if (!writesControl(options)) return { write: (row) => `{${properties(row)}}`, guid: guid.alias, version };
  const control = controlText(query.entity, options);
  const versionAlias = version();
  const write: Part = (row) => {
    const key = String(row[guid.alias]);
    let text = control.leading(key, String(row[versionAlias]));
    const own = properties(row);
    if (own !== "") text = text === "" ? own : `${text},${own}`;
    const trailing = control.trailing(key);
    if (trailing !== "") text = text === "" ? trailing : `${text},${trailing}`;
    return `{${text}}`;
  };
  return { write, guid: guid.alias, version };
}

export function rowPlan(query: ReadQuery, scope: QueryScope, options: EntityOutput): RowPlan {
  const columns = new Columns();
  const { write, guid, version } = objectWriter(query, scope, columns, options);
  // the top-level record's version is selected at every metadata level: it is the ETag header
  const versionAlias = version();
  return { columns: sql.join(columns.list, sql`, `), write, guidAlias: guid, versionAlias };
}
