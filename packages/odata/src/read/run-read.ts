/**
 * Runs prepared reads and writes the response body (api-conventions: Reads). The body text is
 * built from the rows directly; nothing is parsed back.
 */
import { type Session, workflowOf } from "@bizdata/core";
import { fillPlaceholders } from "drizzle-orm";
import { JOINED_PAGE } from "../compile/compile-read.js";
import type { PreparedPage, PreparedRead, PreparedStatement } from "./prepare-read.js";

export interface RunArgs {
  readonly tenantId: string;
  /** the record's Guid, for single reads (the owner's, for an ownership check) */
  readonly key?: string;
  /** an owned item's Guid, for an ownership check */
  readonly item?: string;
  /** the Guids a read prepared with `keys` is restricted to */
  readonly keys?: readonly string[];
  /** the URL of the next page, given the `$skip` it starts at */
  readonly nextLink?: (skip: number) => string;
  /** the delta link a tracked read's last page ends with (track-changes.ts) */
  readonly deltaLink?: string;
}

/**
 * A compiled read's rows, planned for the values of each run where its best plan depends on them
 * (prepare-read.ts: a path filter's generic plan ran 8x slower), wherever it runs: also in a
 * writing transaction (a workflow step's GET, the record a write answers with)
 */
const rows = (session: Session, prepared: PreparedStatement, args: RunArgs) =>
  session.query({
    planForValues: prepared.planForValues,
    sql: prepared.sql,
    params: fillPlaceholders(prepared.params as unknown[], {
      tenant: args.tenantId,
      key: args.key,
      item: args.item,
      // a statement prepared for a staged store reads the workflow of the session's
      workflow: workflowOf(session),
      keys: args.keys,
    }),
  });

/** `{"value":[…]}` with `@odata.count` when asked and `@odata.nextLink` when the page was cut */
export async function runCollection(session: Session, prepared: PreparedPage, args: RunArgs): Promise<string> {
  return collectionBody(await rows(session, prepared, args), prepared, args, prepared.counted);
}

/**
 * A read from a keyed record's navigation (compile-navigation.ts): the owned collection's page,
 * or undefined when that record does not exist.
 */
export async function runContained(
  session: Session,
  prepared: PreparedPage,
  args: RunArgs,
): Promise<string | undefined> {
  const all = await rows(session, prepared, args);
  return all.length === 0 ? undefined : collectionBody(all, prepared, args, true);
}

/** the number of a keyed record's collection items, or undefined when that record does not exist */
export async function runContainedCount(
  session: Session,
  prepared: PreparedRead,
  args: RunArgs,
): Promise<number | undefined> {
  const [row] = await rows(session, prepared, args);
  return row === undefined ? undefined : Number(row.count ?? 0);
}

/**
 * The record (or complex value) a keyed record's navigation leads to: undefined when the keyed
 * record does not exist, null when it exists but leads nowhere (a null reference).
 */
export async function runRelated(
  session: Session,
  prepared: PreparedRead,
  args: RunArgs,
): Promise<string | null | undefined> {
  const [row] = await rows(session, prepared, args);
  if (row === undefined) return undefined;
  return row[prepared.guidAlias] === null ? null : prepared.write(row);
}

/**
 * Whether an owner holds an item (prepareOwnership): undefined when the record the owner is
 * reached from does not exist.
 */
export async function runOwnership(
  session: Session,
  prepared: PreparedStatement,
  args: RunArgs,
): Promise<boolean | undefined> {
  const [row] = await rows(session, prepared, args);
  return row === undefined ? undefined : row.item !== null;
}

/**
 * The body of a page's rows. `outerJoined`: the page is LEFT JOINed to its count or its owner, so
 * an empty one is one row without a record. A joined page (JOINED_PAGE) is one row whatever it holds.
 */
function collectionBody(
  all: Record<string, unknown>[],
  prepared: PreparedPage,
  args: RunArgs,
  outerJoined: boolean,
): string {
  if (prepared.joined) {
    const [row] = all;
    const count = prepared.counted ? Number(row![JOINED_PAGE.count]) : undefined;
    const cut = row![JOINED_PAGE.more] === true ? prepared.limit : undefined;
    return pageBody(count, row![JOINED_PAGE.items] as string, cut, prepared, args);
  }
  const count = prepared.counted ? Number(all[0]?.$count ?? 0) : undefined;
  const records = outerJoined ? all.filter((r) => r[prepared.guidAlias] !== null) : all;
  const limit = prepared.limit ?? records.length;
  const truncated = prepared.serverPaged && records.length > limit;
  const page = truncated ? records.slice(0, limit) : records;
  // appended one by one: a page's records are joined once, when the body is sent, not here first
  let items = "";
  for (let i = 0; i < page.length; i++) items += i === 0 ? prepared.write(page[i]!) : `,${prepared.write(page[i]!)}`;
  return pageBody(count, items, truncated ? limit : undefined, prepared, args);
}

/** `{"value":[…]}` of the records' texts `items`; `cut`: the page's size, when the server page size cut it */
function pageBody(
  count: number | undefined,
  items: string,
  cut: number | undefined,
  prepared: PreparedPage,
  args: RunArgs,
): string {
  let body = "{";
  if (count !== undefined) body += `"@odata.count":${count},`;
  body += `"value":[${items}]`;
  if (cut !== undefined && args.nextLink)
    body += `,"@odata.nextLink":${JSON.stringify(args.nextLink(prepared.skip + cut))}`;
  else if (args.deltaLink !== undefined) body += `,"@odata.deltaLink":${JSON.stringify(args.deltaLink)}`;
  return `${body}}`;
}

/**
 * The records a read prepared with `keys` and without a page found (a delta's, track-changes.ts),
 * each one's JSON text by its Guid: those of the keys that exist and match the read's conditions.
 */
export async function runKeyed(
  session: Session,
  prepared: PreparedPage,
  args: RunArgs & { readonly keys: readonly string[] },
): Promise<Map<string, string>> {
  if (prepared.joined) throw new Error("a read of keys without a page writes its records one by one");
  const found = new Map<string, string>();
  for (const row of await rows(session, prepared, args))
    found.set(String(row[prepared.guidAlias]), prepared.write(row));
  return found;
}

/** one record as it is read */
export interface SingleRecord {
  /** the entity object's JSON text */
  readonly body: string;
  /** its version, what its ETag says (staged-view.ts) */
  readonly version: string;
}

/** the entity object and its version, or undefined when this tenant has no record with that Guid */
export async function runSingle(
  session: Session,
  prepared: PreparedRead,
  args: RunArgs,
): Promise<SingleRecord | undefined> {
  const [row] = await rows(session, prepared, args);
  return row === undefined ? undefined : { body: prepared.write(row), version: String(row[prepared.versionAlias!]) };
}

export async function runCount(session: Session, prepared: PreparedRead, args: RunArgs): Promise<number> {
  const [row] = await rows(session, prepared, args);
  return Number(row?.count ?? 0);
}
