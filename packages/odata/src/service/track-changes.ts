/**
 * Change tracking (OData 4.01 Protocol §11.3, JSON Format §15) over the change log (core's
 * change-table.ts). A collection read with `Prefer: odata.track-changes` answers as usual and ends
 * its last page with `@odata.deltaLink` (`Preference-Applied: odata.track-changes`); following the
 * link answers the records changed since, shaped by the link's `$select` and `$expand`, and an
 * entry with `@removed` for each that was deleted, or that changed and no longer matches its
 * `$filter`/`$search`. Its own last page ends with the next delta link.
 *
 * - Where the changes start: the log's watermark (change-reads.ts) read before the collection is,
 *   so that a change committing while the collection is read comes in the delta (maybe again).
 * - What counts as a record's change: its own rows, and those of the items of an owned collection
 *   the read expands (`SalesOrder?$expand=Details` after a line changed). A record the read only
 *   references (`$expand=SellToCustomer`) is tracked through its own entity set.
 * - Pages: a delta holds at most the server page size of changes; a longer one has next links,
 *   each reading the same range on from where the page before stopped.
 * - A token older than the log's retention answers 410 DeltaTokenExpired; one that is not this
 *   service's, or sent with other options than its link's, 400 InvalidDeltaToken.
 *
 * Tracked are reads of an entity set, with `$filter`, `$search`, `$select`, `$expand`, `$orderby`
 * and `$compute`; a read with `$apply`, `$top` or `$skip` of its own, or in a workflow step (whose
 * staged state is in no log), answers without a delta link.
 */
import { badRequest, type ChangeRow, changeWatermark, inUnit, readChanges, ServiceError } from "@bizdata/core";
import type { PlannedRead } from "../read/read-planner.js";
import { runCollection, runKeyed } from "../read/run-read.js";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { queryString } from "../syntax/query-parameters.js";
import {
  checkRetention,
  type DeltaToken,
  decodeToken,
  encodeToken,
  queryDigest,
  trackedOptions,
  trackingOption,
} from "./delta-token.js";
import type { ODataRequest } from "./odata-request.js";
import { type ODataResult, payloadResult } from "./odata-result.js";
import { type ServiceContext, storeOf } from "./service-context.js";

/** what a request asks of change tracking: its options without a token, and the token it sent */
export interface Tracking {
  readonly search: URLSearchParams;
  readonly token: DeltaToken | undefined;
}

/** the request's tracking, or undefined when it neither prefers tracking nor sends a token */
export function trackingOf(service: ServiceContext, request: ODataRequest): Tracking | undefined {
  let sent: { option: "$deltatoken" | "$skiptoken"; text: string } | undefined;
  for (const [name, text] of request.search) {
    const option = trackingOption(name);
    if (option === undefined) continue;
    if (sent !== undefined)
      throw badRequest("InvalidDeltaToken", "Send one $deltatoken or $skiptoken: the link's own.", option);
    sent = { option, text };
  }
  if (sent === undefined && !request.trackChanges) return undefined;
  // without a change log (CHANGE_LOG=off) nothing is tracked: the preference is not applied, and
  // a link from when it was on answers as one past the retention does, so that its client reads anew
  if (!service.db.store.changeLog) {
    if (sent === undefined) return undefined;
    throw new ServiceError(
      "DeltaTokenExpired",
      "This service keeps no change log now (CHANGE_LOG=off), so it cannot say what changed since this link: read the collection again.",
    );
  }
  const search = new URLSearchParams([...request.search].filter(([name]) => trackingOption(name) === undefined));
  if (sent === undefined) return { search, token: undefined };
  const token = decodeToken(sent.text, sent.option, queryDigest(request.path, search));
  checkRetention(token, service.changeRetention);
  return { search, token };
}

/** the options that would make the tracked set another than the entity set's (filtered) records */
const UNTRACKABLE = ["$apply", "$top", "$skip"];

/** a tracked link: the request's path with `options` (and the client's `$format`) */
function linkOf(service: ServiceContext, request: ODataRequest, options: URLSearchParams): string {
  if (request.formatOption !== undefined) options.set("$format", request.formatOption);
  return `${service.basePath}/${request.path}?${queryString(options)}`;
}

/** the delta link that reads the changes from watermark `from`, read at `at` */
function deltaLinkOf(
  service: ServiceContext,
  request: ODataRequest,
  search: URLSearchParams,
  from: string,
  at: number,
) {
  const options = trackedOptions(search);
  options.set("$deltatoken", encodeToken({ kind: "delta", from, began: at, query: queryDigest(request.path, search) }));
  return linkOf(service, request, options);
}

/**
 * A tracked read (`Prefer: odata.track-changes`, or the next page of one): the read `read` with
 * its delta link on its last page. Undefined when the read cannot be tracked (not an entity set's
 * collection, or with options that pick another set): the caller serves it untracked.
 */
export async function readTracked(
  service: ServiceContext,
  request: ODataRequest,
  tracking: Tracking,
  read: PlannedRead,
): Promise<ODataResult | undefined> {
  const { token, search } = tracking;
  // a workflow step reads its staged state, which no change log holds
  if (storeOf(service)?.view !== undefined) {
    if (token !== undefined) throw badRequest("NotSupported", "Follow delta links outside workflows.");
    return undefined;
  }
  if (token?.kind === "delta" || token?.kind === "page") return readDelta(service, request, tracking, read);
  const options = new Set([...search.keys()].map((name) => systemQueryOption(name)));
  const own = token === undefined ? UNTRACKABLE : UNTRACKABLE.filter((o) => o !== "$skip");
  if (read.kind !== "collection" || read.key !== undefined || own.some((o) => options.has(o))) {
    if (token !== undefined)
      throw badRequest("InvalidDeltaToken", "$skiptoken continues an entity set's tracked read.");
    return undefined;
  }
  request.authorize?.({ kind: "read", entities: read.reads });
  const at = token?.began ?? Date.now();
  const digest = queryDigest(request.path, search);
  const body = await inUnit(
    service.db,
    request.tenantId,
    service.unit,
    async (tx) => {
      // before the read: what commits while it runs is in the delta, if not in the read
      const from = token?.from ?? (await changeWatermark(tx));
      const nextLink = (skip: number) => {
        const next = new URLSearchParams([...search].filter(([name]) => systemQueryOption(name) !== "$skip"));
        next.set("$skip", String(skip));
        next.set("$skiptoken", encodeToken({ kind: "snapshot", from, began: at, query: digest }));
        return linkOf(service, request, next);
      };
      const deltaLink = deltaLinkOf(service, request, search, from, at);
      return runCollection(tx, read.prepared, { tenantId: request.tenantId, nextLink, deltaLink });
    },
    { readOnly: true },
  );
  return payloadResult(
    service,
    request,
    200,
    body,
    { context: read.context },
    token === undefined ? { "Preference-Applied": "odata.track-changes" } : {},
  );
}

/** the entities whose log rows are changes of `read`'s records: its own, and the owned items it expands */
function trackedEntities(service: ServiceContext, read: PlannedRead): string[] {
  const owned = read.reads.filter((name) => service.model.owner(name)?.entity === read.entity);
  return [read.entity.name, ...owned];
}

/**
 * The records of `read` in the order their changes came, each deleted or not: a record is deleted
 * when its own last row in the page says so (its items' rows leave that as it is)
 */
function changedRecords(entity: string, rows: readonly ChangeRow[]): Map<string, boolean> {
  const records = new Map<string, boolean>();
  for (const row of rows) {
    if (row.entity === entity) records.set(row.key, row.kind === "delete");
    else if (row.owner !== null && !records.has(row.owner)) records.set(row.owner, false);
  }
  return records;
}

const removed = (entity: string, key: string, reason: "deleted" | "changed") =>
  `{"@removed":{"reason":"${reason}"},"@id":${JSON.stringify(`${entity}(${key})`)},"Guid":"${key}"}`;

/** a delta: the changes of a range of the log as the link's read shapes them, removals included */
async function readDelta(
  service: ServiceContext,
  request: ODataRequest,
  tracking: Tracking,
  read: PlannedRead,
): Promise<ODataResult> {
  const token = tracking.token as Extract<DeltaToken, { kind: "delta" | "page" }>;
  if (read.kind !== "collection" || read.key !== undefined)
    throw badRequest("InvalidDeltaToken", "$deltatoken reads the changes of an entity set.");
  request.authorize?.({ kind: "read", entities: read.reads });
  const { tenantId } = request;
  const entity = read.entity.name;
  // the link's read of the changed records: its options, restricted to their keys, every one of them
  const keyed = service.planner.plan({
    path: request.path,
    search: trackedOptions(tracking.search),
    ieee754Compatible: request.ieee754Compatible ?? false,
    store: storeOf(service),
    metadata: request.metadata ?? "minimal",
    paged: false,
    keys: true,
  });
  if (keyed.kind !== "collection") throw new Error("an entity set reads a collection");
  const limit = service.planner.limits.maxPageSize;
  const body = await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      const page = await readChanges(tx, tenantId, {
        entities: trackedEntities(service, read),
        from: token.from,
        to: token.kind === "page" ? token.to : undefined,
        after: token.kind === "page" ? token.after : undefined,
        limit: limit + 1,
      });
      const more = page.rows.length > limit;
      const rows = more ? page.rows.slice(0, limit) : page.rows;
      const records = changedRecords(entity, rows);
      const found =
        records.size === 0
          ? new Map<string, string>()
          : await runKeyed(tx, keyed.prepared, { tenantId, keys: [...records.keys()] });
      const entries: string[] = [];
      for (const [key, deleted] of records)
        entries.push(found.get(key) ?? removed(entity, key, deleted ? "deleted" : "changed"));
      let link: string;
      if (more) {
        const last = rows.at(-1)!;
        const next = trackedOptions(tracking.search);
        const at = { xid: last.xid, seq: last.seq };
        next.set(
          "$skiptoken",
          encodeToken({
            kind: "page",
            from: token.from,
            to: page.to,
            after: at,
            began: token.began,
            query: token.query,
          }),
        );
        link = `"@odata.nextLink":${JSON.stringify(linkOf(service, request, next))}`;
      } else {
        // when the range's end was read: now, or for a page after the first, no later than its start
        const at = token.kind === "page" ? token.began : Date.now();
        link = `"@odata.deltaLink":${JSON.stringify(deltaLinkOf(service, request, tracking.search, page.to, at))}`;
      }
      return `{"value":[${entries.join(",")}],${link}}`;
    },
    // the range's rows, then the records: two statements
    { readOnly: true },
  );
  return payloadResult(service, request, 200, body, { context: `${keyed.context}/$delta` });
}
