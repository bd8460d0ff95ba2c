/**
 * Compiles a bound read into one SQL statement (architecture: one prepared statement per
 * request). The tenant predicate is always part of it; row-level security checks it again.
 */
import { TENANT_COLUMN, tableName } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import type { ReadQuery } from "../bind/read-query.js";
import { type SerializeOptions, selectColumns } from "./select-columns.js";

export interface CompileContext extends SerializeOptions {
  readonly tenantId: string;
  /** server page size: a longer result is cut and gets a next link */
  readonly pageSize: number;
}

export interface CompiledCollection {
  readonly statement: SQL;
  readonly serialize: (row: Record<string, unknown>) => string;
  /** rows asked for; one more comes back when the page was cut */
  readonly limit: number;
  readonly serverPaged: boolean;
}

const T = "t";

const from = (query: ReadQuery, ctx: CompileContext): SQL =>
  sql`FROM ${sql.identifier(tableName(query.entity))} AS ${sql.identifier(T)} WHERE ${sql.identifier(T)}.${sql.identifier(TENANT_COLUMN)} = ${ctx.tenantId}`;

export function compileCollection(query: ReadQuery, ctx: CompileContext): CompiledCollection {
  const { columns, serialize } = selectColumns(T, query.select, ctx);
  const serverPaged = query.top === undefined || query.top > ctx.pageSize;
  const limit = serverPaged ? ctx.pageSize : query.top!;
  const page = sql`SELECT ${columns} ${from(query, ctx)} ORDER BY ${sql.identifier(T)}.guid LIMIT ${limit + (serverPaged ? 1 : 0)} OFFSET ${query.skip ?? 0}`;
  if (!query.count) return { statement: page, serialize, limit, serverPaged };
  // the count and the page in one statement; an empty page still yields the one count row
  const statement = sql`SELECT n.count AS "$count", p.* FROM (SELECT count(*) AS count ${from(query, ctx)}) n LEFT JOIN LATERAL (${page}) p ON true`;
  return { statement, serialize, limit, serverPaged };
}

export function compileSingle(query: ReadQuery, guid: string, ctx: CompileContext) {
  const { columns, serialize } = selectColumns(T, query.select, ctx);
  return {
    statement: sql`SELECT ${columns} ${from(query, ctx)} AND ${sql.identifier(T)}.guid = ${guid}::uuid`,
    serialize,
  };
}

export function compileCount(query: ReadQuery, ctx: CompileContext): SQL {
  return sql`SELECT count(*) AS count ${from(query, ctx)}`;
}
