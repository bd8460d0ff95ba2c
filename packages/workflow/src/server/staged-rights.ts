/**
 * Rights at every step that changes data (issue 35): a staged write was checked when it was
 * staged, but committing the workflow (which stores it), closing it (which discards it) and
 * answering one of its questions (which continues it) are asked again, with the caller's rights
 * as they are now — a `bizdata.read` token, or a user demoted since, may read and resume the
 * workflow but not do these. Every entity the staged state touches is checked for each kind of
 * change it holds of it. A change of an owned item is also allowed by the right to create or
 * update its owner, as a deep write of the owner is (the item is part of the owner's record).
 */
import { type AnyEntity, forbidden, type Model } from "@bizdata/core";
import type { Access } from "@bizdata/odata";
import type { StagedCounts } from "./commit-workflow.js";

/** whether the caller may make `access` now: its token's scopes and its roles as stored */
export type Rights = (access: Access) => boolean;

/** the steps that store, discard or continue what a workflow staged */
export type StagedAction = "commit" | "close" | "answer";

type Write = "create" | "update" | "delete";

/** each kind of write and the staged count that makes it */
const WRITES: readonly (readonly [Write, keyof StagedCounts])[] = [
  ["create", "created"],
  ["update", "changed"],
  ["delete", "deleted"],
];

const GERUND: Readonly<Record<Write, string>> = { create: "creating", update: "updating", delete: "deleting" };
const DOING: Readonly<Record<StagedAction, string>> = {
  commit: "committing it",
  close: "closing it",
  answer: "answering its question",
};

function allowed(may: Rights, model: Model, def: AnyEntity, kind: Write): boolean {
  if (may({ kind, entity: def.name })) return true;
  for (let owner = model.owner(def.name); owner !== undefined; owner = model.owner(owner.entity.name)) {
    const entity = owner.entity.name;
    if (may({ kind: "update", entity }) || may({ kind: "create", entity })) return true;
  }
  return false;
}

/** throws 403 `Forbidden`, naming the write and entity, unless the caller may make every write `staged` holds */
export function requireStagedRights(
  may: Rights,
  model: Model,
  staged: ReadonlyMap<AnyEntity, StagedCounts>,
  action: StagedAction,
): void {
  for (const [def, counts] of staged) {
    for (const [kind, count] of WRITES) {
      if (counts[count] > 0 && !allowed(may, model, def, kind))
        throw forbidden(`${GERUND[kind]} ${def.name}, which this workflow staged; ${DOING[action]} needs that right`);
    }
  }
}
