/**
 * Compiles an `$apply` read into one statement: WHERE for the filters before grouping, GROUP BY
 * for the grouping properties, HAVING for the filters after, the aggregates in the select list.
 * Rows are written as objects with the grouping properties nested by path and the aggregates
 * by alias.
 */
import { type SQL, sql } from "drizzle-orm";
import type { ApplyQuery } from "../bind/apply-query.js";
import { applyClauses } from "./apply-clauses.js";
import { compileExpr, type ExpressionContext } from "./compile-expression.js";
import { type CompileContext, type CompiledRead, pageOf, recordsInReach } from "./compile-read.js";
import { rowValue, writerFor } from "./output-value.js";
import { AliasSource, QueryScope } from "./query-scope.js";

type Row = Record<string, unknown>;

interface OutputNode {
  readonly key: string;
  readonly write?: (row: Row) => string;
  readonly children: OutputNode[];
}

function writeNode(node: OutputNode, row: Row): string {
  if (node.write) return node.write(row);
  return `{${node.children.map((c) => `${JSON.stringify(c.key)}:${writeNode(c, row)}`).join(",")}}`;
}

export function compileApply(query: ApplyQuery, ctx: CompileContext): CompiledRead {
  // an aggregate reads every record it groups
  const scope = QueryScope.over(query.entity, new AliasSource(ctx.view), "scanned");
  const ectx: ExpressionContext = { scopes: new Map([[null, scope]]) };
  const inReach = recordsInReach(scope, ctx);
  const clauses = applyClauses(query, ectx);
  const where = clauses.where ? sql`${inReach} AND ${clauses.where}` : inReach;
  const columns: SQL[] = [];
  const root: OutputNode = { key: "", children: [] };
  query.groups.forEach((g, i) => {
    const alias = `g${i}`;
    const value = clauses.groupBy[i]!;
    columns.push(sql`${rowValue(value, g.expr.type)} AS ${sql.identifier(alias)}`);
    let node = root;
    for (const segment of g.path.slice(0, -1)) {
      let child = node.children.find((c) => c.key === segment && !c.write);
      if (!child) {
        child = { key: segment, children: [] };
        node.children.push(child);
      }
      node = child;
    }
    const write = writerFor(g.expr.type, ctx);
    node.children.push({ key: g.path.at(-1)!, write: (row) => write(row[alias]), children: [] });
  });
  query.aggregates.forEach((a, i) => {
    const alias = `a${i}`;
    columns.push(sql`${rowValue(compileExpr(a.expr, ectx), a.expr.type)} AS ${sql.identifier(alias)}`);
    const write = writerFor(a.expr.type, ctx);
    root.children.push({ key: a.alias, write: (row) => write(row[alias]), children: [] });
  });
  const paging = pageOf(query, ctx);
  const grouped = sql`${scope.from()} WHERE ${where}${clauses.grouping}`;
  const page = sql`SELECT ${sql.join(columns, sql`, `)}, true AS "$row" ${grouped}${clauses.order}${paging.clause}`;
  const base = { write: (row: Row) => writeNode(root, row), guidAlias: "$row", ...paging.base };
  if (!query.count) return { statement: page, ...base };
  const statement = sql`SELECT n.count AS "$count", p.* FROM (SELECT count(*) AS count FROM (SELECT 1 ${grouped}) g) n LEFT JOIN LATERAL (${page}) p ON true`;
  return { statement, ...base };
}
