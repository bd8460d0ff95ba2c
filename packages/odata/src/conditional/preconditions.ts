/**
 * `If-Match` and `If-None-Match` on one record (RFC 9110 §13; OData Protocol 4.01 §11.4.1.1):
 * a write proceeds only while the record is at a version the client names, a read of an
 * unchanged record answers 304. Preconditions are checked on the record as the request sees it
 * (a workflow step: as the workflow sees it), after it is known to exist — a missing record is a
 * 404 whatever the headers say (RFC 9110 §13.2.1).
 */
import {
  type AnyEntity,
  lockOwnerOf,
  type Model,
  notFound,
  recordVersion,
  ServiceError,
  type Session,
} from "@bizdata/core";
import { type EntityTags, etagOf, parseEntityTags, tagsMatch } from "./entity-tags.js";

export interface Preconditions {
  readonly ifMatch?: EntityTags;
  readonly ifNoneMatch?: EntityTags;
}

/** the request's conditions, parsed (a malformed header is a 400 naming it) */
export function preconditionsOf(headers: {
  readonly ifMatch?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
}): Preconditions {
  return {
    ...(headers.ifMatch !== undefined && { ifMatch: parseEntityTags("If-Match", headers.ifMatch) }),
    ...(headers.ifNoneMatch !== undefined && { ifNoneMatch: parseEntityTags("If-None-Match", headers.ifNoneMatch) }),
  };
}

const failed = (record: string, header: "If-Match" | "If-None-Match", version: string) =>
  new ServiceError(
    "PreconditionFailed",
    header === "If-Match"
      ? `${record} has changed since that version: it is now at ETag ${etagOf(version)}. Read it again, then retry with the new ETag in If-Match.`
      : `${record} is at ETag ${etagOf(version)}, which If-None-Match names, so nothing was done.`,
    header,
  ).withHeaders({ ETag: etagOf(version) });

/**
 * What the conditions say of a record at `version`: `proceed`, or `notModified` for a read whose
 * If-None-Match names the version; a write whose If-None-Match names it, or any request whose
 * If-Match does not, fails with 412 (PreconditionFailed, the current ETag in its header).
 */
export function evaluate(
  conditions: Preconditions,
  record: string,
  version: string,
  read: boolean,
): "proceed" | "notModified" {
  if (conditions.ifMatch !== undefined && !tagsMatch(conditions.ifMatch, version))
    throw failed(record, "If-Match", version);
  if (conditions.ifNoneMatch !== undefined && tagsMatch(conditions.ifNoneMatch, version)) {
    if (read) return "notModified";
    throw failed(record, "If-None-Match", version);
  }
  return "proceed";
}

/**
 * Checks a write's conditions on the record in `session` (its base row locked until the write is
 * done). A change made with a matching If-Match is a change made knowing the record as it is
 * now; inside a workflow, that re-bases the record's staged change on the main record as it is
 * now (the ETag a workflow shows names the main version), which is how a workflow resolves a
 * commit conflict: read the record again, and send the change with its ETag. An owned item's
 * owner is locked first, as the item's write locks it (core's lockOwnerOf).
 */
export async function checkWrite(
  session: Session,
  model: Model,
  def: AnyEntity,
  tenantId: string,
  guid: string,
  conditions: Preconditions,
): Promise<void> {
  if (conditions.ifMatch === undefined && conditions.ifNoneMatch === undefined) return;
  const record = `${def.name}(${guid})`;
  await lockOwnerOf({ session, model, tenant: { id: tenantId, features: new Set() } }, def, guid);
  const version = await recordVersion(session, def, tenantId, guid, { forUpdate: true });
  if (version === undefined) throw notFound(`${record} does not exist.`);
  evaluate(conditions, record, version, false);
  if (conditions.ifMatch !== undefined) await session.store.rebase(session, def, tenantId, guid);
}
