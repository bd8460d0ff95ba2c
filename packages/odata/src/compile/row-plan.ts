/**
 * The select list of a read as flat columns (`c0, c1, …`) plus the function that writes one row
 * as response JSON: a single record, and the records of a page that need TypeScript (a virtual
 * property, RecordReadOnly; other pages are JSON text from json-object.ts, compile-read.ts). The
 * record and its expanded references are written from the flat row; expanded collections arrive
 * as JSON text from json-object.ts and are copied in unchanged. Nothing is parsed and
 * re-serialized unless a virtual property inside a collection asks for it.
 */
import { assignPath, type ColumnMapping, disabledMethods, fromColumnValue, versionText } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import { valueTypeOf } from "../bind/bound-expr.js";
import { membersWritten, type ReadQuery } from "../bind/read-query.js";
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
import { rowValue, type Writer, writerFor } from "./output-value.js";
import type { QueryScope } from "./query-scope.js";

type Row = Record<string, unknown>;
type Part = (row: Row) => string;

/**
 * A piece of an object's JSON text: fixed text, a column's value as its writer writes it, or
 * text made from the whole row (a virtual property, an expanded reference).
 */
type Segment = string | { readonly alias: string; readonly write: Writer } | { readonly row: Part };

/** one step of a compiled writer: fixed text, then a value (a column's, or the row's when `alias` is undefined) */
interface Step {
  readonly text: string;
  readonly alias: string | undefined;
  readonly write: (value: never) => string;
}

/**
 * The writer of a sequence of segments, with adjacent fixed text joined. Written for every row of
 * every page: one loop over steps of one shape that appends to one string, which measured half the
 * time per page of a closure per property returning its own string.
 */
function textWriter(segments: readonly Segment[]): Part {
  const steps: Step[] = [];
  let text = "";
  for (const s of segments) {
    if (typeof s === "string") text += s;
    else {
      steps.push("row" in s ? { text, alias: undefined, write: s.row } : { text, alias: s.alias, write: s.write });
      text = "";
    }
  }
  const last = text;
  return (row) => {
    let out = "";
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      out += step.text + step.write((step.alias === undefined ? row : row[step.alias]) as never);
    }
    return out + last;
  };
}

/** a value's writer for text that is already JSON (a collection PostgreSQL built, a count) */
const asIs: Writer = (value) => `${value}`;

/** the segments of members joined by commas */
const joined = (members: readonly (readonly Segment[])[]): Segment[] =>
  members.flatMap((m, i) => (i === 0 ? m : [",", ...m]));

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
  /** each property as `"name":value` */
  const parts: { key: string; segments: Segment[] }[] = query.select.map((p) => {
    const key = JSON.stringify(p.name);
    switch (p.kind) {
      case "column":
        return { key: p.name, segments: [`${key}:`, column(p.column)] };
      case "complex": {
        const members = membersWritten(query, p).map((m): Segment[] => [`${JSON.stringify(m.path[1])}:`, column(m)]);
        return { key: p.name, segments: [`${key}:{`, ...joined(members), "}"] };
      }
      case "virtual": {
        const deps = p.dependsOn.map((c) => ({ c, alias: column(c).alias }));
        const value: Part = (row) => {
          const source: Row = {};
          for (const { c, alias } of deps) assignPath(source, c.path, fromColumnValue(c.field, row[alias]));
          const computed = p.field.compute(source);
          return computed === undefined ? "null" : JSON.stringify(computed);
        };
        return { key: p.name, segments: [`${key}:`, { row: value }] };
      }
      case "computed": {
        const value = rowValue(compileExpr(p.expr, { scopes: new Map([[null, scope]]) }), p.expr.type);
        const alias = columns.add(`${scope.alias}.$compute.${p.name}`, value);
        return { key: p.name, segments: [`${key}:`, { alias, write: writerFor(p.expr.type, options) }] };
      }
      case "recordReadOnly": {
        if (p.dependsOn.length === 0) return { key: p.name, segments: [`${key}:[]`] };
        const deps = p.dependsOn.map((c) => ({ c, alias: column(c).alias }));
        const features = columns.add("$features", featuresColumn(scope));
        const value: Part = (row) => {
          const source: Row = {};
          for (const { c, alias } of deps) assignPath(source, c.path, fromColumnValue(c.field, row[alias]));
          return JSON.stringify(disabledMethods(p.model, p.entity, source, featureSet(row[features])));
        };
        return { key: p.name, segments: [`${key}:`, { row: value }] };
      }
      default:
        return p satisfies never;
    }
  });
  for (const e of query.expand) {
    if (e.kind === "collection") {
      const alias = columns.add(`${scope.alias}.$expand.${e.name}`, sql`${collectionJson(e, scope, options)}::text`);
      const key = JSON.stringify(e.name);
      const features = needsFeatures(e.query) ? columns.add("$features", featuresColumn(scope)) : undefined;
      const finished: Part = (row) => {
        // numbers keep their text: a decimal is never rounded on the way through
        const items = parseExactJson(String(row[alias])) as Row[];
        for (const item of items) finishVirtuals(e.query, item, featureSet(row[features!]));
        return writeExactJson(items);
      };
      parts.push({
        key: e.name,
        segments: [`${key}:`, needsFinishing(e.query) ? { row: finished } : { alias, write: asIs }],
      });
      if (e.query.count) {
        const countAlias = columns.add(`${scope.alias}.$count.${e.name}`, collectionCount(e, scope));
        const countKey = JSON.stringify(`${e.name}@odata.count`);
        parts.push({ key: `${e.name}@odata.count`, segments: [`${countKey}:`, { alias: countAlias, write: asIs }] });
      }
      continue;
    }
    const target = scope.at(scope.navigate([e.navigation]), e.navigation.target);
    const nested = objectWriter(e.query, target, columns, options);
    const reference: Segment[] = [
      `${JSON.stringify(e.path.at(-1))}:`,
      { row: (row) => (row[nested.guid] === null ? "null" : nested.write(row)) },
    ];
    if (e.path.length === 1) {
      parts.push({ key: e.path[0]!, segments: reference });
      continue;
    }
    // a reference inside a complex value is written inside that value's object
    const complex = parts.find((p) => p.key === e.path[0]);
    if (complex) {
      // before the object's closing brace, after a comma unless the object is still `{}`
      const before = complex.segments.at(-2);
      const empty = typeof before === "string" && before.endsWith("{");
      complex.segments.splice(-1, 0, ...(empty ? [] : [","]), ...reference);
    } else {
      const outerKey = JSON.stringify(e.path[0]);
      parts.push({ key: e.path[0]!, segments: [`${outerKey}:{`, ...reference, "}"] });
    }
  }
  const properties = joined(parts.map((p) => p.segments));
  if (!writesControl(options)) return { write: textWriter(["{", ...properties, "}"]), guid: guid.alias, version };
  const control = controlText(query.entity, options);
  const versionAlias = version();
  // the Guid and version as their text: a uuid's and a number's need no escaping
  const record = (template: typeof control.leading): Segment[] =>
    template.map((p) =>
      typeof p === "string" ? p : { alias: p.column === "guid" ? guid.alias : versionAlias, write: String },
    );
  const sections = [record(control.leading), properties, record(control.trailing)].filter((x) => x.length > 0);
  return { write: textWriter(["{", ...joined(sections), "}"]), guid: guid.alias, version };
}

export function rowPlan(query: ReadQuery, scope: QueryScope, options: EntityOutput): RowPlan {
  const columns = new Columns();
  const { write, guid, version } = objectWriter(query, scope, columns, options);
  // the top-level record's version is selected at every metadata level: it is the ETag header
  const versionAlias = version();
  return { columns: sql.join(columns.list, sql`, `), write, guidAlias: guid, versionAlias };
}
