/**
 * Compiles a bound read into one SQL statement (architecture: one prepared statement per
 * request): filter, order, paging, expanded references as joins and expanded collections as
 * correlated subqueries. The tenant predicate is always part of it; row-level security checks it
 * again. A page of plain records comes as one row, the JSON texts PostgreSQL builds for its
 * records joined (`joinedPage`); a page with expands, and a single record, as flat columns that
 * TypeScript writes (row-plan.ts).
 */
import { type ReadAs, type StagedView, TENANT_COLUMN } from "@bizdata/core";
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { ReadQuery } from "../bind/read-query.js";
import { compileExpr } from "./compile-expression.js";
import { searchCondition } from "./compile-search.js";
import type { EntityOutput } from "./control-info.js";
import { jsonObject, needsFinishing } from "./json-object.js";
import { orderClause } from "./order-clause.js";
import { AliasSource, QueryScope } from "./query-scope.js";
import { type RowPlan, rowPlan } from "./row-plan.js";

export interface CompileContext extends EntityOutput {
  /** inside a workflow: read its staged state */
  readonly view?: StagedView;
  /** a value, or a placeholder filled at execution so that one compiled statement serves every tenant */
  readonly tenantId: string | Placeholder;
  /** server page size: a longer result is cut and gets a next link; unset, every record comes back */
  readonly pageSize?: number;
  /** only the records with these Guids: a `uuid[]` value, as a placeholder filled at execution */
  readonly keys?: Placeholder;
}

/** where a read's page starts and ends */
export interface PageBounds {
  /** rows asked for (undefined: all); one more comes back when the page was cut */
  readonly limit?: number;
  readonly serverPaged: boolean;
  /** where the page starts, for the next link */
  readonly skip: number;
}

/** a read whose rows are written one by one */
export interface RowsRead extends PageBounds {
  readonly statement: SQL;
  readonly joined?: false;
  readonly write: RowPlan["write"];
  /** rows with a null here are no record (the count row of an empty page) */
  readonly guidAlias: string;
  /** the alias of the record's version, what its ETag says (none for `$apply` groups) */
  readonly versionAlias?: string;
}

/** a page of plain records as one row (`joinedPage`, JOINED_PAGE) */
export interface JoinedRead extends PageBounds {
  readonly statement: SQL;
  readonly joined: true;
}

/** a single record's or a related record's read */
export type CompiledRead = RowsRead;
/** a page's read */
export type CompiledPage = RowsRead | JoinedRead;

/** the records a read may see: the tenant's, and of those only the given keys when there are */
export function recordsInReach(scope: QueryScope, ctx: Pick<CompileContext, "tenantId" | "keys">): SQL {
  const record = sql.identifier(scope.alias);
  const tenant = sql`${record}.${sql.identifier(TENANT_COLUMN)} = ${ctx.tenantId}`;
  // the keys travel as one array parameter, however many there are
  return ctx.keys === undefined ? tenant : sql`${tenant} AND ${record}.guid = ANY(${ctx.keys}::uuid[])`;
}

/**
 * `LIMIT … OFFSET …` for the client's `$top`/`$skip` and the server page: a server-paged read
 * asks for one row more than the page, which tells that the page was cut.
 */
export function pageOf(
  query: { readonly top?: number; readonly skip?: number },
  ctx: Pick<CompileContext, "pageSize">,
): { clause: SQL; base: PageBounds } {
  const serverPaged = ctx.pageSize !== undefined && (query.top === undefined || query.top > ctx.pageSize);
  const limit = serverPaged ? ctx.pageSize : query.top;
  const skip = query.skip ?? 0;
  const clause =
    limit === undefined ? sql` OFFSET ${skip}` : sql` LIMIT ${limit + (serverPaged ? 1 : 0)} OFFSET ${skip}`;
  return { clause, base: { ...(limit !== undefined && { limit }), serverPaged, skip } };
}

/**
 * Restricts a read to the records of one scope: the items of a collection owned by a record that
 * an enclosing query reads (a navigation, compile-navigation.ts). Its aliases are that query's.
 */
export interface Within {
  readonly aliases: AliasSource;
  readonly condition: (scope: QueryScope) => SQL;
}

/** FROM … WHERE tenant [AND keys] [AND within] [AND filter] for the query's entity, in a fresh scope */
function filtered(
  query: ReadQuery,
  ctx: Pick<CompileContext, "tenantId" | "keys">,
  aliases: AliasSource,
  within?: Within,
  readAs?: ReadAs,
): { scope: QueryScope; where: SQL } {
  const scope = QueryScope.over(query.entity, aliases, readAs);
  const reach = recordsInReach(scope, ctx);
  const inReach = within === undefined ? reach : sql`${reach} AND ${within.condition(scope)}`;
  const searched = query.search ? sql`${inReach} AND ${searchCondition(query.search, scope)}` : inReach;
  const where = query.filter
    ? sql`${searched} AND ${compileExpr(query.filter, { scopes: new Map([[null, scope]]), condition: true })}`
    : searched;
  return { scope, where };
}

/** the most records a page joined into one row holds (`joinedPage`) */
export const JOINED_PAGE_MOST = 1000;

/**
 * The columns of a page's rows and how each row is written, for a page of records with expanded
 * references or collections, or with a virtual property or RecordReadOnly that depends on the
 * record (needsFinishing), which need TypeScript (row-plan.ts). Their statement already costs
 * PostgreSQL the most: as one joined row too (`pnpm bench:compare`), query-path-expand cost the
 * host's process 0.83x the CPU but PostgreSQL 1.09x, query-nested-expand 0.81x and 1.05x, for
 * 4-6% more pages per second on one machine; PostgreSQL is the process a host cannot add more of.
 * So does a page without a bound or of more than JOINED_PAGE_MOST records (a method's unpaged
 * read, a server page set larger): joined, all of it would be one value in the backend's memory,
 * and PostgreSQL holds no value over 1 GB.
 * Undefined for a page of plain records: that is one row (`joinedPage`).
 */
function pageRows(query: ReadQuery, scope: QueryScope, ctx: CompileContext, paging: PageBounds): RowPlan | undefined {
  const bounded = paging.limit !== undefined && paging.limit <= JOINED_PAGE_MOST;
  return needsFinishing(query) || query.expand.length > 0 || !bounded ? rowPlan(query, scope, ctx) : undefined;
}

/** the columns of a joined page's one row */
export const JOINED_PAGE = { items: "$page", more: "$more", count: "$count" } as const;

/**
 * A page of plain records as one row: `$page`, the JSON text PostgreSQL builds for each record
 * (json-object.ts), joined by commas in the page's order (the ARRAY of a subquery keeps its
 * order), `$more` whether a server-paged read found a record past the page, and `$count` when
 * asked. The host's process, the busier one for such pages, copies that text into the body as it
 * is: receiving a row per record cost it up to a third more CPU. Against a row per record
 * (`pnpm bench:compare`, two runs): list-select 1.07-1.18x the pages per second, the host's CPU
 * 0.74-0.83x and PostgreSQL's 1.09x; query-filter 1.00-1.05x, 0.75-0.93x and 1.07-1.09x.
 */
function joinedPage(page: SQL, paging: PageBounds, count: SQL | undefined): SQL {
  const counted = count === undefined ? sql`` : sql`(${count}) AS ${sql.identifier(JOINED_PAGE.count)}, `;
  const items = sql.identifier(JOINED_PAGE.items);
  if (!paging.serverPaged) return sql`SELECT ${counted}array_to_string(ARRAY(${page}), ',') AS ${items}`;
  // the page was asked for with one record more, which tells that it was cut
  const limit = paging.limit!;
  return sql`SELECT ${counted}array_to_string(p.a[:${limit}], ',') AS ${items}, cardinality(p.a) > ${limit} AS ${sql.identifier(JOINED_PAGE.more)} FROM (SELECT ARRAY(${page}) AS a) p`;
}

export function compileCollection(query: ReadQuery, ctx: CompileContext, within?: Within): CompiledPage {
  const aliases = within?.aliases ?? new AliasSource(ctx.view);
  const paging = pageOf(query, ctx);
  // a page stops early, in index order where an index has it; a collection without a limit is read whole
  const { scope, where } = filtered(
    query,
    ctx,
    aliases,
    within,
    paging.base.limit === undefined ? "scanned" : "indexed",
  );
  const order = orderClause(query.orderBy, scope);
  const plan = pageRows(query, scope, ctx, paging.base);
  const columns = plan?.columns ?? jsonObject(query, scope, ctx);
  const page = sql`SELECT ${columns} ${scope.from()} WHERE ${where} ORDER BY ${order}${paging.clause}`;
  const count = query.count ? compileCount(query, ctx, within, aliases) : undefined;
  if (plan === undefined) return { statement: joinedPage(page, paging.base, count), joined: true, ...paging.base };
  const base = { write: plan.write, guidAlias: plan.guidAlias, ...paging.base };
  if (count === undefined) return { statement: page, ...base };
  // the count and the page in one statement; an empty page still yields the one count row
  const statement = sql`SELECT n.count AS "$count", p.* FROM (${count}) n LEFT JOIN LATERAL (${page}) p ON true`;
  return { statement, ...base };
}

export function compileSingle(query: ReadQuery, guid: string | Placeholder, ctx: CompileContext): CompiledRead {
  const { scope, where } = filtered(query, ctx, new AliasSource(ctx.view));
  const plan = rowPlan(query, scope, ctx);
  // its key narrows both branches of the scanned overlay, which then looks the one key up among the
  // staged rows; the indexed form would gather every staged key of the workflow first
  const statement = sql`SELECT ${plan.columns} ${scope.from("scanned")} WHERE ${where} AND ${sql.identifier(scope.alias)}.guid = ${guid}::uuid`;
  return {
    statement,
    write: plan.write,
    guidAlias: plan.guidAlias,
    versionAlias: plan.versionAlias,
    limit: 1,
    serverPaged: false,
    skip: 0,
  };
}

/** `aliases`: those of the statement the count is part of (a page's with `$count`) */
export function compileCount(
  query: ReadQuery,
  ctx: CompileContext,
  within?: Within,
  aliases = within?.aliases ?? new AliasSource(ctx.view),
): SQL {
  const { scope, where } = filtered(query, ctx, aliases, within, "scanned");
  return sql`SELECT count(*) AS count ${scope.from()} WHERE ${where}`;
}
