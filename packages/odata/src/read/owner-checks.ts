/**
 * The checks that an owned item named under its owner (`SalesOrder(…)/Details(…)`, OData 4.01
 * URL conventions §4.3, ABNF collectionNavPath) belongs to that owner, run before the read, write or method call of the item's
 * own address (bind-resource-path.ts, Ownership). A missing owner and an item that is not the
 * owner's are both a 404, each named: the item of another owner is not reached through this one.
 */
import { notFound, type RecordStore, type Session } from "@bizdata/core";
import type { Ownership } from "../bind/bind-resource-path.js";
import { type PreparedStatement, prepareOwnership } from "./prepare-read.js";
import { runOwnership } from "./run-read.js";

/** one owner's check, prepared, with the keys of this request (a cached plan gets the keys of the next: read-planner.ts) */
export interface OwnerCheck {
  readonly prepared: PreparedStatement;
  /** the entity the owner is reached from, by `key` */
  readonly root: string;
  /** from the root to the collection, for messages: `Details`, `PrimaryContact/Addresses` */
  readonly path: string;
  /** the entities the check reads, for permissions */
  readonly reads: readonly string[];
  readonly key: string;
  /** the item's key */
  readonly item: string;
}

/** the checks of a path's owners, outermost first, prepared for `store` (the base tables when left out) */
export const planOwnerChecks = (
  owners: readonly Ownership[] | undefined,
  store: RecordStore | undefined,
): OwnerCheck[] =>
  (owners ?? []).map((ownership) => {
    const { owner, name, key } = ownership;
    return {
      prepared: prepareOwnership(ownership, { store }),
      root: owner.root.name,
      path: [...owner.via.map((v) => v.column.path.join("/")), name].join("/"),
      reads: [owner.root.name, ...owner.via.map((v) => v.target.name)],
      key: owner.key,
      item: key,
    };
  });

/** the entities the checks read */
export const ownerReads = (checks: readonly OwnerCheck[]): string[] => checks.flatMap((c) => c.reads);

/** throws 404 unless every owner exists and holds its item, in what `session` reads */
export async function checkOwners(
  session: Session,
  checks: readonly OwnerCheck[],
  args: { readonly tenantId: string },
): Promise<void> {
  for (const check of checks) {
    const held = await runOwnership(session, check.prepared, { ...args, key: check.key, item: check.item });
    if (held === undefined) throw notFound(`${check.root}(${check.key}) does not exist.`);
    if (!held) throw notFound(`${check.root}(${check.key})/${check.path} has no item ${check.item}.`);
  }
}
