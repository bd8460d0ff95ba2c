/**
 * Reads that start at a keyed record and follow its navigation properties
 * (`SalesOrder(…)/SellToCustomer`, `SalesOrder(…)/Details`, `Contact(…)/MailingAddress`), each
 * one statement like every read: the root record by key, its to-one steps as joins, and what
 * they lead to selected from there. The root's row is always there when the root is, so no row
 * at all means the root does not exist (404), while a row without a record means the navigation
 * leads nowhere (a null reference: 204, an empty collection: `[]`).
 */
import { type AnyEntity, type ColumnMapping, TENANT_COLUMN } from "@bizdata/core";
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Navigation } from "../bind/bound-expr.js";
import { valueTypeOf } from "../bind/bound-expr.js";
import type { ReadQuery } from "../bind/read-query.js";
import { compileExpr } from "./compile-expression.js";
import {
  type CompileContext,
  type CompiledPage,
  type CompiledRead,
  compileCollection,
  compileCount,
  recordsInReach,
} from "./compile-read.js";
import { searchCondition } from "./compile-search.js";
import { rowValue, writerFor } from "./output-value.js";
import { AliasSource, QueryScope } from "./query-scope.js";
import { rowPlan } from "./row-plan.js";

/** where a navigation starts: the root entity, its key, and the to-one steps taken from it */
export interface NavigationStart {
  readonly root: ReadQuery["entity"];
  readonly via: readonly Navigation[];
  readonly key: string | Placeholder;
}

/** the root record by key, and the alias of the record its steps lead to */
function fromRoot(start: NavigationStart, ctx: CompileContext) {
  const aliases = new AliasSource(ctx.view);
  const root = QueryScope.over(start.root, aliases);
  const at = root.navigate(start.via);
  const where = sql`${recordsInReach(root, ctx)} AND ${sql.identifier(root.alias)}.guid = ${start.key}::uuid`;
  return { aliases, root, at, where };
}

/** the record the steps lead to, shaped by `query` (`$select`, `$expand`, `$compute`) */
export function compileRelated(query: ReadQuery, start: NavigationStart, ctx: CompileContext): CompiledRead {
  const { root, at, where } = fromRoot(start, ctx);
  const target = root.at(at, query.entity);
  const filter = query.filter
    ? sql` AND ${compileExpr(query.filter, { scopes: new Map([[null, target]]), condition: true })}`
    : sql``;
  const search = query.search ? sql` AND ${searchCondition(query.search, target)}` : sql``;
  const plan = rowPlan(query, target, ctx);
  const statement = sql`SELECT ${plan.columns} ${root.from()} WHERE ${where}${search}${filter}`;
  return { statement, write: plan.write, guidAlias: plan.guidAlias, limit: 1, serverPaged: false, skip: 0 };
}

/** the items of the collection `inverse` points back from, owned by the record the steps lead to */
function within(at: string, inverse: ColumnMapping, aliases: AliasSource) {
  const owner = sql.identifier(at);
  return {
    aliases,
    condition: (items: QueryScope) => {
      const item = sql.identifier(items.alias);
      return sql`${item}.${sql.identifier(TENANT_COLUMN)} = ${owner}.${sql.identifier(TENANT_COLUMN)} AND ${item}.${sql.identifier(inverse.column)} = ${owner}.guid`;
    },
  };
}

/** a page of the owned collection's items (with `@odata.count` when asked), as a collection read makes it */
export function compileContained(
  query: ReadQuery,
  start: NavigationStart,
  inverse: ColumnMapping,
  ctx: CompileContext,
): CompiledPage {
  const { aliases, root, at, where } = fromRoot(start, ctx);
  const { statement: page, ...rest } = compileCollection(query, ctx, within(at, inverse, aliases));
  // the page is correlated with the owner, so it is joined LATERAL; an empty one is still a row
  return { statement: sql`SELECT p.* ${root.from()} LEFT JOIN LATERAL (${page}) p ON true WHERE ${where}`, ...rest };
}

/** the number of the owned collection's items that `$filter` keeps */
export function compileContainedCount(
  query: ReadQuery,
  start: NavigationStart,
  inverse: ColumnMapping,
  ctx: CompileContext,
): SQL {
  const { aliases, root, at, where } = fromRoot(start, ctx);
  const count = compileCount(query, ctx, within(at, inverse, aliases));
  return sql`SELECT n.count ${root.from()} LEFT JOIN LATERAL (${count}) n ON true WHERE ${where}`;
}

/**
 * Whether the record the steps lead to holds the item with Guid `key` in the collection `inverse`
 * points back from (`SalesOrder(…)/Details(…)`): a row when the root exists, its `item` null
 * when the item is not one of the owner's (no such record, or another owner's).
 */
export function compileOwnership(
  start: NavigationStart,
  inverse: ColumnMapping,
  item: AnyEntity,
  key: Placeholder,
  ctx: CompileContext,
): SQL {
  const { aliases, root, at, where } = fromRoot(start, ctx);
  const items = QueryScope.over(item, aliases);
  const alias = sql.identifier(items.alias);
  const held = sql`${recordsInReach(items, ctx)} AND ${within(at, inverse, aliases).condition(items)} AND ${alias}.guid = ${key}::uuid`;
  return sql`SELECT (SELECT ${alias}.guid ${items.from()} WHERE ${held}) AS item ${root.from()} WHERE ${where}`;
}

/** a complex value of the record the steps lead to, as its JSON object */
export function compileComplex(
  members: readonly ColumnMapping[],
  start: NavigationStart,
  ctx: CompileContext,
): CompiledRead {
  const { root, at, where } = fromRoot(start, ctx);
  const owner = "c0";
  const columns = [sql`${sql.identifier(at)}.guid AS ${sql.identifier(owner)}`];
  const parts = members.map((m, i) => {
    const type = valueTypeOf(m);
    const alias = `c${i + 1}`;
    columns.push(sql`${rowValue(root.column(at, m.column), type)} AS ${sql.identifier(alias)}`);
    const key = JSON.stringify(m.path[1]);
    const write = writerFor(type, ctx);
    return (row: Record<string, unknown>) => `${key}:${write(row[alias])}`;
  });
  const statement = sql`SELECT ${sql.join(columns, sql`, `)} ${root.from()} WHERE ${where}`;
  const write = (row: Record<string, unknown>) => `{${parts.map((part) => part(row)).join(",")}}`;
  return { statement, write, guidAlias: owner, limit: 1, serverPaged: false, skip: 0 };
}
