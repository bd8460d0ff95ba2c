/**
 * Rules both batch formats share, applied to the parts in request order: methods, limits, ids,
 * atomicity groups, `dependsOn` and `$<id>` references (JSON Format 4.01 §19, Protocol 4.0
 * §11.7.3). Each format reads its wire shape into `DraftPart`s; `finishBatch` makes `BatchPart`s.
 */
import type { BatchLimits } from "../limits.js";
import { groupLabel, invalidBatch, partLabel, quote, tooManyParts, tooManyWrites } from "./batch-errors.js";
import type { BatchMethod, BatchPart, ParsedBatch } from "./batch-types.js";

/** A part as read from the wire: `id` is only what the client sent. */
export type DraftPart = Omit<BatchPart, "id"> & { readonly id: string | undefined };

const methods: ReadonlySet<string> = new Set<BatchMethod>(["GET", "POST", "PATCH", "DELETE"]);

/** OData ABNF `request-id = 1*unreserved`: what may follow `$` in a URL reference */
export const requestIdPattern = /^[A-Za-z0-9\-._~]+$/;

/** System resources a relative URL may start with that are not `$<id>` references (JSON 4.01 §19) */
const systemResources = new Set(["$batch", "$crossjoin", "$all", "$entity", "$root", "$id", "$metadata"]);

export function batchMethod(method: string, where: string): BatchMethod {
  if (methods.has(method)) return method as BatchMethod;
  throw invalidBatch(where, `method ${quote(method)} is not supported; use GET, POST, PATCH or DELETE`);
}

/** Refuses a batch over the limits of spec 8: parts in total, writes per changeset / group. */
export function checkLimits(drafts: readonly DraftPart[], limits: BatchLimits): void {
  if (drafts.length > limits.maxBatchParts) throw tooManyParts(limits);
  const writes = new Map<string, number>();
  drafts.forEach((draft, index) => {
    if (draft.atomicityGroup === undefined || draft.method === "GET") return;
    const count = (writes.get(draft.atomicityGroup) ?? 0) + 1;
    writes.set(draft.atomicityGroup, count);
    if (count > limits.maxChangesetWrites) {
      throw tooManyWrites(partLabel(index + 1, draft.id), groupLabel(draft.atomicityGroup), limits);
    }
  });
}

/** Gives every part an id and checks how the parts refer to each other. */
export function finishBatch(format: ParsedBatch["format"], drafts: readonly DraftPart[]): ParsedBatch {
  const ids = new Map<string, number>();
  drafts.forEach((draft, index) => {
    const id = draft.id ?? `p${index + 1}`;
    const other = ids.get(id);
    if (other !== undefined) {
      const problem = draft.id === undefined ? `has no id, and its generated id "${id}"` : "its id";
      throw invalidBatch(partLabel(index + 1, draft.id), `${problem} is already used by part ${other + 1}`);
    }
    ids.set(id, index);
  });
  const groups = new Map<string, number>(); // group → index of its first part
  const parts = drafts.map((draft, index): BatchPart => {
    const id = draft.id ?? `p${index + 1}`;
    const where = partLabel(index + 1, draft.id);
    const group = draft.atomicityGroup;
    if (group !== undefined) checkGroup(draft, group, index, where, ids, groups, drafts);
    if (/\$batch$/i.test(draft.url.replace(/[?#].*$/s, ""))) {
      throw invalidBatch(where, "a batch cannot contain another batch ($batch)");
    }
    const dependsOn = [...draft.dependsOn];
    for (const name of dependsOn) checkDependency(name, index, where, ids, groups, group);
    const reference = referencedId(draft.url, index, where, ids);
    if (reference !== undefined && !dependsOn.includes(reference)) dependsOn.push(reference);
    return { ...draft, id, dependsOn };
  });
  return { format, parts };
}

function checkGroup(
  draft: DraftPart,
  group: string,
  index: number,
  where: string,
  ids: ReadonlyMap<string, number>,
  groups: Map<string, number>,
  drafts: readonly DraftPart[],
): void {
  if (ids.has(group)) throw invalidBatch(where, `${groupLabel(group)} has the same name as a request id`);
  if (draft.method === "GET") {
    throw invalidBatch(where, `a GET request cannot be in ${groupLabel(group)}; changesets hold only writes`);
  }
  const first = groups.get(group);
  if (first === undefined) groups.set(group, index);
  else if (drafts[index - 1]?.atomicityGroup !== group) {
    throw invalidBatch(where, `the requests of ${groupLabel(group)} must be adjacent, starting at part ${first + 1}`);
  }
}

/** JSON 4.01 §19: `dependsOn` names preceding requests, or groups of preceding requests. */
function checkDependency(
  name: string,
  index: number,
  where: string,
  ids: ReadonlyMap<string, number>,
  groups: ReadonlyMap<string, number>,
  ownGroup: string | undefined,
): void {
  const request = ids.get(name);
  if (request !== undefined && request < index) return;
  if (request !== undefined) throw invalidBatch(where, `dependsOn names ${quote(name)}, ${notEarlier(request, index)}`);
  if (name === ownGroup) throw invalidBatch(where, `dependsOn names its own ${groupLabel(name)}`);
  if (groups.has(name)) return;
  throw invalidBatch(where, `dependsOn names ${quote(name)}, which is no earlier request or atomicity group`);
}

/** The id a relative URL `$<id>/…` refers to (JSON 4.01 §19, Protocol 4.0 §11.7.3.1), if any. */
function referencedId(url: string, index: number, where: string, ids: ReadonlyMap<string, number>): string | undefined {
  const segment = /^\$[^/?#(]*/.exec(url)?.[0];
  if (segment === undefined) return undefined;
  const id = segment.slice(1);
  const request = ids.get(id);
  // a request id wins over a system resource it matches only case-insensitively (`$iD` vs `$id`)
  if (request === undefined && systemResources.has(segment.toLowerCase())) return undefined;
  if (request !== undefined && request < index) return id;
  const problem = request === undefined ? "which names no request" : notEarlier(request, index);
  throw invalidBatch(where, `the url starts with ${quote(segment)}, ${problem}`);
}

const notEarlier = (request: number, index: number): string =>
  request === index ? "which is the request itself" : `which is the later part ${request + 1}`;
