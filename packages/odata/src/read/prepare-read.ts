/**
 * A compiled read, ready to run any number of times: the statement text with its parameters
 * (the tenant and the record key as placeholders), and how to write its rows.
 */

import type { ColumnMapping, RecordStore } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { ApplyQuery } from "../bind/apply-query.js";
import type { NavigationSource, Ownership } from "../bind/bind-resource-path.js";
import type { ReadQuery } from "../bind/read-query.js";
import { compileApply } from "../compile/compile-apply.js";
import {
  compileComplex,
  compileContained,
  compileContainedCount,
  compileOwnership,
  compileRelated,
  type NavigationStart,
} from "../compile/compile-navigation.js";
import {
  type CompiledPage,
  type CompiledRead,
  compileCollection,
  compileCount,
  compileSingle,
} from "../compile/compile-read.js";
import type { EntityOutput } from "../compile/control-info.js";
import { planForValues, type Reach } from "../compile/plan-for-values.js";

/** a statement's text and parameters, its placeholders filled at run (run-read.ts) */
export interface PreparedStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** whether its best plan depends on its values (plan-for-values.ts), or a cached generic one serves every run */
  readonly planForValues: boolean;
}

/** a compiled read without its statement, which becomes the prepared one's text and parameters */
type Prepared<T extends CompiledPage> = T extends unknown ? Omit<T, "statement"> & PreparedStatement & Counted : never;
interface Counted {
  /** the rows carry `$count` */
  readonly counted: boolean;
}
/** a single or related record's read */
export type PreparedRead = Prepared<CompiledRead>;
/** a page's read, as one row or a row per record */
export type PreparedPage = Prepared<CompiledPage>;

export interface PrepareOptions extends EntityOutput {
  /** server page size; unset, every record comes back */
  readonly pageSize?: number;
  /**
   * What the statement reads: a store with a view (a workflow's staged state, `session.store`)
   * compiles against its overlay, the workflow a placeholder filled at run from the session it
   * runs in; the base tables when left out
   */
  readonly store?: RecordStore | undefined;
  /** only the records whose Guids are given at run (RunArgs.keys) */
  readonly keys?: boolean;
}

const dialect = new PgDialect();
const tenantId = sql.placeholder("tenant");
const view = { workflowId: sql.placeholder("workflow") };
const keys = sql.placeholder("keys");
const context = ({ store, keys: restricted, ...options }: PrepareOptions) => ({
  ...options,
  tenantId,
  ...(store?.view !== undefined && { view }),
  ...(restricted && { keys }),
});

/** `statement` as text and parameters, with how its plan is made, for `query` reaching its records so */
function statementOf(
  statement: SQL,
  reach: Reach,
  options: Pick<PrepareOptions, "store">,
  query?: ReadQuery | ApplyQuery,
): PreparedStatement {
  const query_ = dialect.sqlToQuery(statement);
  return {
    sql: query_.sql,
    params: query_.params,
    planForValues: planForValues(reach, options.store?.view !== undefined, query),
  };
}

function prepared<T extends CompiledPage>(
  compiled: T,
  counted: boolean,
  reach: Reach,
  options: PrepareOptions,
  query: ReadQuery | ApplyQuery,
): Prepared<T> {
  const { statement, ...rest } = compiled;
  return { ...rest, ...statementOf(statement, reach, options, query), counted } as unknown as Prepared<T>;
}

export const prepareCollection = (query: ReadQuery | ApplyQuery, options: PrepareOptions): PreparedPage =>
  prepared<CompiledPage>(
    "aggregates" in query ? compileApply(query, context(options)) : compileCollection(query, context(options)),
    query.count,
    // a collection restricted to given Guids (a method's result) reaches its records by key
    options.keys ? "key" : "tenant",
    options,
    query,
  );

export const prepareSingle = (query: ReadQuery, options: PrepareOptions): PreparedRead =>
  prepared(compileSingle(query, sql.placeholder("key"), context(options)), false, "key", options, query);

export const prepareCount = (query: ReadQuery, options: PrepareOptions): PreparedRead =>
  preparedCount(statementOf(compileCount(query, context(options)), "tenant", options, query));

/** where a navigation starts, its key a placeholder filled at run */
const start = (source: NavigationSource): NavigationStart => ({
  root: source.root,
  via: source.via,
  key: sql.placeholder("key"),
});

/** `SalesOrder(…)/SellToCustomer`: the related record */
export const prepareRelated = (query: ReadQuery, source: NavigationSource, options: PrepareOptions): PreparedRead =>
  prepared(compileRelated(query, start(source), context(options)), false, "key", options, query);

/** `SalesOrder(…)/Details`: a page of the owned collection */
export const prepareContained = (
  query: ReadQuery,
  source: NavigationSource,
  inverse: ColumnMapping,
  options: PrepareOptions,
): PreparedPage =>
  prepared(compileContained(query, start(source), inverse, context(options)), query.count, "key", options, query);

/** `SalesOrder(…)/Details/$count` */
export const prepareContainedCount = (
  query: ReadQuery,
  source: NavigationSource,
  inverse: ColumnMapping,
  options: PrepareOptions,
): PreparedRead =>
  preparedCount(
    statementOf(compileContainedCount(query, start(source), inverse, context(options)), "key", options, query),
  );

/**
 * `SalesOrder(…)/Details(…)`: whether the owner holds the item, the owner's key and the item's
 * placeholders filled at run (`key`, `item`). It writes no values, so only the store matters.
 */
export const prepareOwnership = (ownership: Ownership, options: Pick<PrepareOptions, "store">): PreparedStatement =>
  statementOf(
    compileOwnership(
      start(ownership.owner),
      ownership.inverse,
      ownership.item,
      sql.placeholder("item"),
      context({ ieee754Compatible: false, ...options }),
    ),
    "key",
    options,
  );

/** `Contact(…)/MailingAddress`: the complex value */
export const prepareComplex = (
  members: readonly ColumnMapping[],
  source: NavigationSource,
  options: PrepareOptions,
): PreparedRead => {
  const { statement, ...rest } = compileComplex(members, start(source), context(options));
  return { ...rest, ...statementOf(statement, "key", options), counted: false };
};

function preparedCount(statement: PreparedStatement): PreparedRead {
  return {
    ...statement,
    counted: false,
    write: () => "",
    guidAlias: "count",
    limit: 1,
    serverPaged: false,
    skip: 0,
  };
}
