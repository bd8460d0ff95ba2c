/**
 * Runs compiled reads and writes the response body (api-conventions: Reads). The body text is
 * built from the rows directly; nothing is parsed back.
 */
import type { Session } from "@bizdata/core";
import type { ReadQuery } from "../bind/read-query.js";
import { type CompileContext, compileCollection, compileCount, compileSingle } from "../compile/compile-read.js";

export interface CollectionContext extends CompileContext {
  /** the URL of the next page, given the `$skip` it starts at */
  readonly nextLink: (skip: number) => string;
}

/** `{"value":[…]}` with `@odata.count` when asked and `@odata.nextLink` when the page was cut */
export async function readCollection(session: Session, query: ReadQuery, ctx: CollectionContext): Promise<string> {
  const compiled = compileCollection(query, ctx);
  const rows = await session.query(compiled.statement);
  const count = query.count ? Number(rows[0]?.$count ?? 0) : undefined;
  // with $count the page is LEFT JOINed to the count, so an empty page is one row without a Guid
  const records = query.count ? rows.filter((r) => r[compiled.guidAlias] !== null) : rows;
  const truncated = compiled.serverPaged && records.length > compiled.limit;
  const page = truncated ? records.slice(0, compiled.limit) : records;
  let body = "{";
  if (count !== undefined) body += `"@odata.count":${count},`;
  body += `"value":[${page.map(compiled.write).join(",")}]`;
  if (truncated) body += `,"@odata.nextLink":${JSON.stringify(ctx.nextLink((query.skip ?? 0) + compiled.limit))}`;
  return `${body}}`;
}

/** the entity object, or undefined when this tenant has no record with that Guid */
export async function readSingle(
  session: Session,
  query: ReadQuery,
  guid: string,
  ctx: CompileContext,
): Promise<string | undefined> {
  const compiled = compileSingle(query, guid, ctx);
  const [row] = await session.query(compiled.statement);
  return row === undefined ? undefined : compiled.write(row);
}

export async function readCount(session: Session, query: ReadQuery, ctx: CompileContext): Promise<number> {
  const [row] = await session.query(compileCount(query, ctx));
  return Number(row?.count ?? 0);
}
