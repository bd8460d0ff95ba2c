/**
 * Writes of one owned collection item (a `SalesOrderDetail`) as deep writes of its root owner
 * (the record that is nobody's item, its `SalesOrder`), wherever the item is addressed: the
 * owner's tree is loaded and locked, the item's change is merged into it as the owner's
 * collection given anew (the other items as they are), and the pipeline runs on the owner. So
 * the item's logic runs, then its owners' up to the root (an order's total follows its lines),
 * save logic and the collection bounds hold on the owner as stored, parallel writes to one
 * owner's items wait for each other, and the session's store takes it (a workflow stages it):
 * what a PATCH of the owner with that collection does, for one item. createRecord, updateRecord
 * and deleteRecord write an item so, whoever calls them (a request, a method body, a virtual
 * entity's save); a set of creates (createRecords: an import) writes each item on its own.
 */
import { randomUUID } from "node:crypto";
import { notFound, ServiceError, validationError } from "../errors.js";
import type { AnyEntity } from "../model/model.js";
import { checkRoomFor } from "./collection-limits.js";
import { resolveReferences } from "./natural-keys.js";
import { type Body, type Loaded, loadTree } from "./record-tree.js";
import {
  changeLoaded,
  forgetWithItems,
  limitsOf,
  saveChanges,
  validated,
  type WriteContext,
  withCache,
} from "./write-record.js";

/** one level down from an owner: the item `guid` of its collection `collection` */
interface Step {
  readonly collection: string;
  readonly guid: string;
}

/** where a record sits: its root owner and the steps from the root down to it (none for a root) */
interface Placement {
  readonly root: AnyEntity;
  readonly guid: string;
  readonly steps: readonly Step[];
}

/** the owner of an item entity, as the model declares it */
function ownerOf(ctx: WriteContext, def: AnyEntity) {
  const owner = ctx.model.owner(def.name);
  if (owner === undefined) throw new Error(`${def.name} is no owned collection's item.`);
  return owner;
}

type Reading = Pick<WriteContext, "session" | "model" | "tenant">;

/** the placement of the stored record `guid` of `def`, read up through its owners; undefined when one is missing */
async function placementOf(ctx: Reading, def: AnyEntity, guid: string): Promise<Placement | undefined> {
  const steps: Step[] = [];
  let at = def;
  let key = guid;
  for (let owner = ctx.model.owner(at.name); owner !== undefined; owner = ctx.model.owner(at.name)) {
    const [record] = await ctx.session.store.load(ctx.session, at, ctx.tenant.id, [key], { forUpdate: false });
    if (record === undefined) return undefined;
    steps.unshift({ collection: owner.collection, guid: key });
    at = owner.entity;
    key = record[owner.inverse] as string;
  }
  return { root: at, guid: key, steps };
}

/**
 * Locks the root owner of the stored item `guid` of `def` (nothing for a record that is nobody's
 * item), as the item's writes do first: a check of the item's version before its write
 * (`If-Match`) that locks the item takes the locks in the order every write of the owner takes
 * them, owner before items, so that the two never wait for each other.
 */
export async function lockOwnerOf(ctx: Reading, def: AnyEntity, guid: string): Promise<void> {
  if (ctx.model.owner(def.name) === undefined) return;
  const placement = await placementOf(ctx, def, guid);
  if (placement === undefined) return;
  await ctx.session.store.load(ctx.session, placement.root, ctx.tenant.id, [placement.guid], { forUpdate: true });
}

/** the root's tree, loaded and locked, and the record `steps` lead to in it; undefined when either is gone */
async function locked(ctx: WriteContext, placement: Placement) {
  const tree = await loadTree(ctx.session, placement.root, ctx.tenant.id, placement.guid);
  let at: Loaded | undefined = tree;
  // a record moved to another owner between the placement and the lock is not where it was
  for (const step of placement.steps) at = at?.items.get(step.collection)?.find((i) => i.record.Guid === step.guid);
  return tree === undefined || at === undefined ? undefined : { tree, at };
}

/**
 * The root's changes that give the collection `collection` of the record `steps` lead to the
 * items `items` makes of its current ones; every other item is named by its Guid alone, unchanged.
 */
function nested(at: Loaded, steps: readonly Step[], collection: string, items: (current: Loaded[]) => Body[]): Body {
  const [step, ...rest] = steps;
  if (step === undefined) return { [collection]: items(at.items.get(collection) ?? []) };
  const current = at.items.get(step.collection) ?? [];
  return {
    [step.collection]: current.map((item) =>
      item.record.Guid === step.guid
        ? { Guid: step.guid, ...nested(item, rest, collection, items) }
        : { Guid: item.record.Guid },
    ),
  };
}

const named = (items: readonly Loaded[]) => items.map((item) => ({ Guid: item.record.Guid }));

/** runs `items` on the collection that holds the stored item `guid` of `def`, as a write of its root; 404 when it is missing */
async function rewriteHolder(
  ctx: WriteContext,
  def: AnyEntity,
  guid: string,
  items: (current: Loaded[]) => Body[],
): Promise<void> {
  const placement = await placementOf(ctx, def, guid);
  const found = placement && (await locked(ctx, placement));
  if (placement === undefined || found === undefined) throw notFound(`${def.name}(${guid}) does not exist.`);
  const holder = placement.steps.slice(0, -1);
  const { collection } = placement.steps.at(-1)!;
  await changeLoaded(ctx, placement.root, found.tree, nested(found.tree, holder, collection, items));
}

/**
 * Creates an item from a client's body, which names its owner (the inverse reference, by Guid or
 * natural key), as a deep write of the owner's root; returns its Guid.
 */
export async function createItem(context: WriteContext, def: AnyEntity, body: unknown): Promise<string> {
  const ctx = withCache(context);
  const { entity: ownerDef, collection, inverse } = ownerOf(ctx, def);
  const value = validated(ctx, def, body, true);
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenant.id, value, ctx.cache);
  const ownerGuid = value[inverse];
  if (typeof ownerGuid !== "string") {
    throw validationError([
      { code: "Required", message: `${inverse} is required: the item's owner.`, target: inverse },
    ]);
  }
  const owner = await placementOf(ctx, ownerDef, ownerGuid);
  const found = owner && (await locked(ctx, owner));
  if (owner === undefined || found === undefined) {
    throw new ServiceError("ReferenceNotFound", `${ownerDef.name}(${ownerGuid}) does not exist.`, inverse);
  }
  const guid = typeof value.Guid === "string" ? value.Guid : randomUUID();
  const item = { ...value, Guid: guid };
  const siblings = found.at.items.get(collection) ?? [];
  // a Guid given for the new item that a sibling has would merge into that sibling, not create
  if (siblings.some((s) => s.record.Guid === guid)) {
    throw new ServiceError("DuplicateKey", "A record with this Guid already exists.", "Guid");
  }
  checkRoomFor(ownerDef, ownerGuid, collection, siblings.length + 1, limitsOf(ctx));
  await changeLoaded(
    ctx,
    owner.root,
    found.tree,
    nested(found.tree, owner.steps, collection, (current) => [...named(current), item]),
  );
  return guid;
}

/**
 * Applies a client's partial update to an item as a deep write of its owner's root; 404 when it
 * does not exist. An update that moves the item to another owner (its inverse reference changed)
 * is written on the item alone, with room checked in the new owner.
 */
export async function updateItem(context: WriteContext, def: AnyEntity, guid: string, body: unknown): Promise<void> {
  const ctx = withCache(context);
  const { inverse } = ownerOf(ctx, def);
  const value = validated(ctx, def, body, false);
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenant.id, value, ctx.cache);
  if (inverse in value) {
    const [stored] = await ctx.session.store.load(ctx.session, def, ctx.tenant.id, [guid], { forUpdate: false });
    if (stored !== undefined && stored[inverse] !== value[inverse]) return saveChanges(ctx, def, guid, value);
  }
  const { Guid: _, ...changes } = value;
  await rewriteHolder(ctx, def, guid, (current) =>
    current.map((item) => (item.record.Guid === guid ? { ...changes, Guid: guid } : { Guid: item.record.Guid })),
  );
}

/** Deletes an item (with its own items) as a deep write of its owner's root; 404 when it does not exist. */
export async function deleteItem(context: WriteContext, def: AnyEntity, guid: string): Promise<void> {
  const ctx = withCache(context);
  await rewriteHolder(ctx, def, guid, (current) => named(current.filter((item) => item.record.Guid !== guid)));
  // the item and its own items are gone for the rest of the unit of work too
  forgetWithItems(ctx.cache, def);
}
