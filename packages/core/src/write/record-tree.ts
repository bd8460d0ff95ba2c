/**
 * The working state of one write: the record and its owned collection items as plain objects
 * (what business logic reads and changes), each beside the state it had when loaded. Loading
 * takes one statement per collection level, merging the request's changes happens in memory.
 */
import { randomUUID } from "node:crypto";
import type { CollectionField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { columnOf, perEntity } from "../storage/naming.js";
import { collectionsOf } from "../storage/record-rows.js";

export type Body = Record<string, unknown>;

export interface RecordNode {
  readonly entity: AnyEntity;
  /** the state logic sees and changes; collection properties hold the items' records */
  readonly record: Body;
  /** as loaded; null for a new record */
  readonly previous: Body | null;
  /** properties the request set (plus collections whose items changed) */
  readonly changed: Set<string>;
  readonly owner: RecordNode | null;
  /** the owner's collection that holds this item; null for a root */
  readonly collection: string | null;
  /** property path prefix for messages and rejections: "" or "Details[2]." */
  readonly path: string;
  /** items of each owned collection, in the order of `record[collection]` */
  readonly items: Map<string, RecordNode[]>;
  /** loaded items the request removed, per collection */
  readonly removed: ReadonlyMap<string, Body[]>;
}

export interface Loaded {
  readonly record: Body;
  readonly items: Map<string, Loaded[]>;
}

/** Loads a record with all its owned collection items (locked for update by default); undefined when missing. */
export async function loadTree(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guid: string,
  options: { lock?: boolean } = {},
): Promise<Loaded | undefined> {
  const [tree] = (await loadTrees(session, def, tenantId, [guid], options)).values();
  return tree;
}

/**
 * Loads many records with their owned collection items: one statement for the records and one
 * per collection and level for the items of all of them, however many records there are.
 * Missing records are absent from the result, which is keyed by Guid.
 */
export async function loadTrees(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  guids: readonly string[],
  options: { lock?: boolean } = {},
): Promise<Map<string, Loaded>> {
  const store = session.store;
  const records = await store.load(session, def, tenantId, guids, { forUpdate: options.lock ?? true });
  const roots = records.map((record): Loaded => ({ record, items: new Map() }));
  const expand = async (owners: Loaded[], ownerDef: AnyEntity): Promise<void> => {
    for (const { name, field } of collectionsOf(ownerDef)) {
      const inverse = columnOf(field.target, [field.inverse])!.column;
      const byOwner = new Map<unknown, Loaded[]>(owners.map((o) => [o.record.Guid, []]));
      const items = await store.loadWhere(session, field.target, tenantId, inverse, [...byOwner.keys()] as string[]);
      const children = items.map((record) => ({ record, items: new Map() }) as Loaded);
      for (const child of children) byOwner.get(child.record[field.inverse])?.push(child);
      for (const owner of owners) owner.items.set(name, byOwner.get(owner.record.Guid) ?? []);
      if (children.length > 0) await expand(children, field.target);
    }
  };
  if (roots.length > 0) await expand(roots, def);
  return new Map(roots.map((root) => [root.record.Guid as string, root]));
}

const copy = (record: Body): Body => {
  const out: Body = {};
  for (const k in record) {
    const v = record[k];
    out[k] = v !== null && typeof v === "object" && !Array.isArray(v) ? { ...(v as Body) } : v;
  }
  return out;
};

const NOTHING_REMOVED: ReadonlyMap<string, Body[]> = new Map();

/** the names of an entity's owned collections, which a merge takes apart from its other properties */
const collectionNames = perEntity((def) => new Set(collectionsOf(def).map((c) => c.name)));

/**
 * Merges validated changes into the loaded state (or builds a new record): scalars replace,
 * complex values merge member by member, a given collection is the new list of items (items
 * with a known Guid are updated, others added, missing ones removed).
 */
export function mergeTree(
  def: AnyEntity,
  loaded: Loaded | undefined,
  changes: Body,
  owner: RecordNode | null,
  path: string,
  collection: string | null = null,
): RecordNode {
  const record = loaded ? copy(loaded.record) : {};
  // a new record has no loaded items to remove: every new record shares one empty map
  const removed = loaded ? new Map<string, Body[]>() : NOTHING_REMOVED;
  const node: RecordNode = {
    entity: def,
    record,
    previous: loaded ? loaded.record : null,
    changed: new Set(),
    owner,
    collection,
    path,
    items: new Map(),
    removed,
  };
  const collections = collectionNames(def);
  for (const key in changes) {
    if (collections.has(key) || !Object.hasOwn(changes, key)) continue;
    const value = changes[key];
    const current = record[key];
    record[key] =
      value !== null && typeof value === "object" && current !== null && typeof current === "object"
        ? { ...(current as Body), ...(value as Body) }
        : value;
    node.changed.add(key);
  }
  if (!loaded) record.Guid = (changes.Guid as string | undefined) ?? randomUUID();
  for (const { name, field } of collectionsOf(def)) {
    const existing = loaded?.items.get(name) ?? [];
    const given = changes[name] as Body[] | null | undefined;
    const items =
      given === undefined
        ? existing.map((item, i) => mergeTree(field.target, item, {}, node, `${path}${name}[${i}].`, name))
        : mergeItems(field, name, existing, given ?? [], node, `${path}${name}`);
    if (given !== undefined) {
      node.changed.add(name);
      if (existing.length > 0) {
        const kept = new Set(items.map((i) => i.record.Guid));
        (removed as Map<string, Body[]>).set(
          name,
          existing.filter((e) => !kept.has(e.record.Guid)).map((e) => e.record),
        );
      }
    }
    for (const item of items) item.record[field.inverse] = record.Guid;
    node.items.set(name, items);
    record[name] = items.map((i) => i.record);
  }
  return node;
}

function mergeItems(
  field: CollectionField,
  name: string,
  existing: Loaded[],
  given: Body[],
  owner: RecordNode,
  path: string,
): RecordNode[] {
  const byGuid = new Map(existing.map((e) => [e.record.Guid as string, e]));
  return given.map((item, i) => {
    const guid = item.Guid as string | undefined;
    const loaded = guid === undefined ? undefined : byGuid.get(guid);
    if (loaded === undefined) return mergeTree(field.target, undefined, item, owner, `${path}[${i}].`, name);
    byGuid.delete(guid!);
    const { Guid: _, ...changes } = item;
    return mergeTree(field.target, loaded, changes, owner, `${path}[${i}].`, name);
  });
}

/** every node of the tree, items before their owner (the order logic runs in) */
export function itemsFirst(node: RecordNode): RecordNode[] {
  // one array for the whole tree: a changeset walks hundreds of trees, each several times
  const order: RecordNode[] = [];
  const visit = (n: RecordNode) => {
    for (const items of n.items.values()) for (const item of items) visit(item);
    order.push(n);
  };
  visit(node);
  return order;
}
