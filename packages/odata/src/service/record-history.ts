/**
 * `GET {Entity}({key})/$history`: a record's changes from the change log (core's change-table.ts),
 * newest first, one entry per transaction that changed it or its owned items: when, who (the user
 * or client) and in which request, what it did, which properties it changed (an owned collection
 * counts as changed when one of its items did, and `items` says how), and their new values where
 * the entity keeps them (`changeLog: "values"`). A deleted record keeps its history for as long
 * as the log keeps changes.
 *
 * A `$`-segment of the service's own rather than a bound function: a function would take a name
 * from every entity's methods, and its answer is not an entity's. Readable per role (the `history`
 * grant of the entity, besides reading it); `$top` pages it (at most the server page size, its
 * default), the next page through `@odata.nextLink` (`$skiptoken`).
 */
import { badRequest, type ChangeRow, inUnit, isTransactionId, type Model, readHistory } from "@bizdata/core";
import type { QueryLimits } from "../limits.js";
import { checkOwners, ownerReads, planOwnerChecks } from "../read/owner-checks.js";
import { resolveResource } from "../read/read-planner.js";
import { parseTop } from "../syntax/parse-paging.js";
import { systemQueryOption } from "../syntax/parse-query-options.js";
import { trackingOption } from "./delta-token.js";
import type { ODataRequest } from "./odata-request.js";
import { type ODataResult, payloadResult } from "./odata-result.js";
import { type ServiceContext, storeOf } from "./service-context.js";

const HISTORY = "/$history";

/** the record path of a `…/$history` path, or undefined when `path` is none */
export const historyOf = (path: string): string | undefined =>
  path.endsWith(HISTORY) ? path.slice(0, -HISTORY.length) : undefined;

/** one transaction's changes of a record, as the history shows them */
export interface HistoryEntry {
  readonly at: string;
  readonly actor: string | null;
  readonly requestId: string | null;
  readonly kind: "create" | "update" | "delete";
  readonly properties: string[];
  readonly values?: Record<string, unknown>;
  readonly items?: { entity: string; key: string; kind: string; properties: readonly string[] | null }[];
}

/** the rows of one transaction as one entry: the record's own, and its items' */
export function historyEntry(model: Model, entity: string, key: string, rows: readonly ChangeRow[]): HistoryEntry {
  const own = rows.filter((r) => r.entity === entity && r.key === key);
  const items = rows.filter((r) => !own.includes(r));
  const properties = new Set<string>();
  let values: Record<string, unknown> | undefined;
  for (const row of own) {
    for (const p of row.properties ?? []) properties.add(p);
    if (row.data !== null) values = { ...values, ...row.data };
  }
  for (const item of items) properties.add(model.owner(item.entity)!.collection);
  const kind = own.at(-1)?.kind === "delete" ? "delete" : own[0]?.kind === "create" ? "create" : "update";
  const first = rows[0]!;
  return {
    at: first.at,
    actor: first.actor,
    requestId: first.requestId,
    kind,
    properties: kind === "update" ? [...properties] : [],
    ...(values !== undefined && { values }),
    ...(items.length > 0 && {
      items: items.map((i) => ({ entity: i.entity, key: i.key, kind: i.kind, properties: i.properties })),
    }),
  };
}

/** the paging the history takes: `$top`, and the service's own `$skiptoken`; nothing else */
function pagingOf(request: ODataRequest, limits: QueryLimits): { limit: number; before: string | undefined } {
  let limit = limits.maxPageSize;
  let before: string | undefined;
  for (const [name, value] of request.search) {
    if (systemQueryOption(name) === "$top") limit = parseTop(value, limits);
    else if (trackingOption(name) === "$skiptoken" && isTransactionId(value)) before = value;
    else throw badRequest("NotSupported", `A record's $history takes $top and its next links only, not ${name}.`, name);
  }
  return { limit: Math.max(limit, 1), before };
}

export async function readRecordHistory(
  service: ServiceContext,
  request: ODataRequest,
  recordPath: string,
): Promise<ODataResult> {
  const { model } = service;
  const path = resolveResource(model, recordPath, service.planner.limits);
  if (path.kind !== "entity")
    throw badRequest("InvalidPath", "$history follows one record: {Entity}({key})/$history.", "$history");
  const entity = path.entity;
  request.authorize?.({ kind: "history", entity: entity.name });
  const owners = planOwnerChecks(path.owners, storeOf(service));
  if (owners.length > 0) request.authorize?.({ kind: "read", entities: ownerReads(owners) });
  const { limit, before } = pagingOf(request, service.planner.limits);
  const key = path.key.toLowerCase();
  const items = [...model.entities.values()]
    .filter((def) => model.owner(def.name)?.entity === entity)
    .map((def) => def.name);
  const { tenantId } = request;
  const page = await inUnit(
    service.db,
    tenantId,
    service.unit,
    async (tx) => {
      await checkOwners(tx, owners, { tenantId });
      return readHistory(tx, tenantId, { entity: entity.name, key, items, before, limit });
    },
    { readOnly: true },
  );
  const entries = page.transactions.map((rows) => historyEntry(model, entity.name, key, rows));
  const next = page.more
    ? `,"@odata.nextLink":${JSON.stringify(
        `${service.basePath}/${request.path}?${new URLSearchParams({ $top: String(limit), $skiptoken: page.transactions.at(-1)![0]!.xid })}`,
      )}`
    : "";
  return payloadResult(service, request, 200, `{"value":${JSON.stringify(entries)}${next}}`, {});
}
