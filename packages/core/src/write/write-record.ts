/**
 * The write pipeline for records and their owned collections (architecture: body →
 * deserialization hooks → validation → natural-key resolution → business logic on the current
 * state → validation of the state as it will be stored → save logic → storage), inside the caller's tenant transaction. Business logic and save
 * logic run for items before their owner, so an owner's logic sees its items as they will be.
 *
 * Logic is written per record; the pipeline runs it over sets: `createRecords` takes many bodies
 * at once (one natural-key lookup per target entity, one insert per table), and every write of a
 * unit of work (a changeset, a commit, an import chunk) shares one read cache, so a record a hook
 * reads is read once per unit, and a hook that declares its `reads` has them loaded for the whole
 * set in one statement per entity.
 */
import { type ErrorDetail, notFound, ServiceError, validationError } from "../errors.js";
import type { TenantInfo } from "../model/hook-context.js";
import type { AnyEntity, Model } from "../model/model.js";
import { modelEntity, readRecord } from "../model/typed-read.js";
import type { UserPrompts } from "../prompts/prompts.js";
import type { Session } from "../storage/database.js";
import { collectionsOf } from "../storage/record-rows.js";
import { type ValidateOptions, validateWrite } from "../validation/index.js";
import { checkStored } from "./check-stored.js";
import {
  checkCollectionSizes,
  checkRoomInOwners,
  defaultWriteLimits,
  owningCollections,
  type WriteLimits,
} from "./collection-limits.js";
import { resolveAllReferences, resolveReferences } from "./natural-keys.js";
import { createItem, deleteItem, updateItem } from "./owned-item-writes.js";
import { saveTrees } from "./persist-tree.js";
import { ReadCache } from "./read-cache.js";
import { decimalsAsNumbers } from "./record-numbers.js";
import { type Body, itemsFirst, type Loaded, loadTree, loadTrees, mergeTree, type RecordNode } from "./record-tree.js";
import { type HookEnvironment, preloadReads, runDeserializeHooks, runLogicHooks, runSaveHooks } from "./run-hooks.js";

export interface WriteContext {
  readonly session: Session;
  readonly model: Model;
  readonly tenant: TenantInfo;
  /** where messages and questions go: collected for a plain request, kept by a workflow */
  readonly prompts: UserPrompts;
  readonly options?: ValidateOptions;
  /**
   * What the unit of work read (natural-key lookups, records that hooks read): shared by the
   * writes of a changeset, a commit or an import chunk; each write has its own otherwise.
   */
  readonly cache?: ReadCache;
  /** bounds on what one write may hold; defaultWriteLimits when left out */
  readonly limits?: WriteLimits;
}

/** the outcome of one record of a set: its Guid, or the error that kept it from being stored */
export type WriteOutcome =
  | { readonly guid: string; readonly error?: undefined }
  | { readonly guid?: undefined; readonly error: ServiceError };

/** deserialization hooks of the entity and, recursively, of its collection items */
function deserialize(ctx: WriteContext, def: AnyEntity, body: unknown, isCreate: boolean): unknown {
  const out = runDeserializeHooks(def, body, isCreate, ctx.tenant);
  if (out === null || typeof out !== "object" || Array.isArray(out)) return out;
  const record = { ...(out as Body) };
  for (const { name, field } of collectionsOf(def)) {
    const items = record[name];
    if (Array.isArray(items)) {
      record[name] = items.map((item) =>
        runDeserializeHooks(field.target, item, !(item && typeof item === "object" && "Guid" in item), ctx.tenant),
      );
    }
  }
  return record;
}

function environment(ctx: WriteContext, cache: ReadCache): HookEnvironment {
  return {
    tenant: ctx.tenant,
    prompts: ctx.prompts,
    read: readRecord(ctx.model, "read()", (def, guid) => cache.read(ctx.session, def, ctx.tenant.id, guid)),
    preload: (entity, guids) => cache.load(ctx.session, modelEntity(ctx.model, entity, "read()"), ctx.tenant.id, guids),
  };
}

const withTitle = (node: RecordNode) => {
  const def = node.entity;
  if (def.title !== undefined && !node.changed.has("Title"))
    node.record.Title = def.title(node.record as never) ?? null;
};

/** the bounds a write is held to */
export const limitsOf = (ctx: WriteContext): WriteLimits => ctx.limits ?? defaultWriteLimits;

/** `ctx` with a cache of its own when the caller shares none */
export const withCache = (ctx: WriteContext): WriteContext & { readonly cache: ReadCache } =>
  ctx.cache === undefined ? { ...ctx, cache: new ReadCache() } : (ctx as WriteContext & { cache: ReadCache });

/** a client's body, deserialized, validated and with decimals as numbers; natural keys not resolved yet */
export function validated(ctx: WriteContext, def: AnyEntity, body: unknown, isCreate: boolean): Body {
  const result = validateWrite(
    ctx.model,
    def,
    deserialize(ctx, def, body, isCreate),
    isCreate ? "create" : "update",
    ctx.options,
  );
  if (!result.success) throw validationError(result.issues);
  // before any item is looked up or merged: a body over a bound is a record over it
  checkCollectionSizes(def, result.value, limitsOf(ctx));
  decimalsAsNumbers(def, result.value);
  return result.value;
}

/** runs `step` for every entry that has not failed yet; a ServiceError fails that entry alone */
async function each<T extends { error?: ServiceError }>(entries: readonly T[], step: (entry: T) => unknown) {
  for (const entry of entries) {
    if (entry.error !== undefined) continue;
    try {
      await step(entry);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      entry.error = err;
    }
  }
}

const isChanged = (node: RecordNode) => node.previous === null || node.changed.size > 0;

/** business logic on a merged tree, items before their owner; then each record's Title */
async function runLogic(root: RecordNode, env: HookEnvironment): Promise<void> {
  for (const node of itemsFirst(root)) {
    // an item that changed marks its owner's collection as changed, before the owner's logic runs
    if (isChanged(node)) {
      if (node.owner !== null && node.collection !== null) node.owner.changed.add(node.collection);
      const running = runLogicHooks(node, env);
      if (running !== undefined) await running;
    }
    withTitle(node);
  }
}

/** save logic of every record of a tree; rejections become one 400 with a detail each */
async function runSaveLogic(root: RecordNode, env: HookEnvironment): Promise<void> {
  const rejected: ErrorDetail[] = [];
  for (const node of itemsFirst(root)) {
    const running = runSaveHooks(node, env, rejected);
    if (running !== undefined) await running;
  }
  if (rejected.length > 0) throw validationError(rejected, "The record cannot be saved.");
}

interface Pending {
  readonly root: RecordNode;
  error?: ServiceError;
}

/**
 * Business logic, save logic and storage for merged trees of one entity, as a set: what the hooks
 * of all of them read is loaded first (their `reads`), every record is validated as it will be
 * stored once logic ran (inside a workflow too, where it is staged), save logic runs once every
 * record's logic has, and the survivors are stored together (one insert per entity and level). A
 * ServiceError of one record (a hook's, a field's, a save-logic rejection) fails that record alone.
 */
async function runPipeline(ctx: WriteContext & { readonly cache: ReadCache }, def: AnyEntity, pending: Pending[]) {
  const env = environment(ctx, ctx.cache);
  // the merged records: items already stored count, whichever write (a method's too) adds more
  await each(pending, (p) => checkCollectionSizes(def, p.root.record, limitsOf(ctx)));
  const nodes = () => pending.filter((p) => p.error === undefined).flatMap((p) => itemsFirst(p.root));
  await preloadReads(nodes().filter(isChanged), "logic", env);
  await each(pending, (p) => runLogic(p.root, env));
  // what logic and server code set is held to the same constraints as a client's body
  await each(pending, (p) => checkStored(ctx.model, p.root));
  const store = async (survivors: RecordNode[]) => {
    if (survivors.length === 0) return;
    if (!ctx.session.store.defersSave && def.storage !== undefined)
      await saveVirtual(
        ctx,
        def,
        survivors.map((r) => r.record),
      );
    else await saveTrees(ctx.session, ctx.tenant.id, survivors);
    // what this unit stored may answer (or change the answer to) a later read or lookup of it
    for (const node of survivors.flatMap(itemsFirst)) ctx.cache.forget(node.entity);
  };
  if (ctx.session.store.defersSave) {
    // a workflow stages the change; save logic (and a virtual entity's save) runs when it commits
    await store(pending.filter((p) => p.error === undefined).map((p) => p.root));
    return;
  }
  await preloadReads(nodes(), "save", env);
  await each(pending, (p) => runSaveLogic(p.root, env));
  await store(pending.filter((p) => p.error === undefined).map((p) => p.root));
}

/**
 * Creates records (each with its collection items) from clients' bodies as one set: each body is
 * deserialized and validated on its own, the natural keys of all of them are resolved with one
 * lookup per target entity, business logic and save logic run per record (with what their hooks
 * read loaded for all of them first), and the records are stored together. A record that fails
 * (validation, references, a hook's error, save logic) gets its error and is not stored; the
 * others are. Records of one set do not see each other in their logic: each sees the state
 * before the set.
 */
export async function createRecords(
  context: WriteContext,
  def: AnyEntity,
  bodies: readonly unknown[],
): Promise<WriteOutcome[]> {
  const ctx = withCache(context);
  const entries = bodies.map((body): Pending & { body: unknown; value?: Body } => ({ body, root: undefined! }));
  await each(entries, (e) => {
    e.value = validated(ctx, def, e.body, true);
  });
  const valid = entries.filter((e) => e.error === undefined);
  const unresolved = await resolveAllReferences(
    ctx.session,
    ctx.model,
    ctx.tenant.id,
    valid.map((e) => ({ entity: def, body: e.value! })),
    ctx.cache,
  );
  valid.forEach((e, i) => {
    if (unresolved[i] !== undefined) e.error = unresolved[i];
    else (e as { root: RecordNode }).root = mergeTree(def, undefined, e.value!, null, "");
  });
  // items created on their own (`POST /SalesOrderDetail` naming its order) count in their owner's collection
  if (owningCollections(ctx.model, def).length > 0) {
    const placed = entries.filter((e) => e.error === undefined);
    const values = placed.map((e) => e.value!);
    const crowded = await checkRoomInOwners(ctx.session, ctx.model, ctx.tenant.id, def, values, limitsOf(ctx));
    placed.forEach((e, i) => {
      if (crowded[i] !== undefined) e.error = crowded[i];
    });
  }
  await runPipeline(ctx, def, entries);
  return entries.map((e) => (e.error === undefined ? { guid: e.root.record.Guid as string } : { error: e.error }));
}

/** merges `changes` into the stored record `guid` and runs the pipeline on it; 404 when it does not exist */
async function change(context: WriteContext, def: AnyEntity, guid: string, changes: Body): Promise<void> {
  const ctx = withCache(context);
  const loaded = await loadTree(ctx.session, def, ctx.tenant.id, guid);
  if (loaded === undefined) throw notFound(`${def.name}(${guid}) does not exist.`);
  await changeLoaded(ctx, def, loaded, changes);
}

/** merges `changes` into a record loaded (and locked) with its items, and runs the pipeline on it */
export async function changeLoaded(context: WriteContext, def: AnyEntity, loaded: Loaded, changes: Body) {
  const ctx = withCache(context);
  // an item moved to another owner (its owner reference changed) needs room there
  const moves = owningCollections(ctx.model, def).filter(
    ({ field }) => field.inverse in changes && changes[field.inverse] !== loaded.record[field.inverse],
  );
  if (moves.length > 0) {
    const moved = Object.fromEntries(moves.map(({ field }) => [field.inverse, changes[field.inverse]]));
    const [crowded] = await checkRoomInOwners(ctx.session, ctx.model, ctx.tenant.id, def, [moved], limitsOf(ctx));
    if (crowded !== undefined) throw crowded;
  }
  const pending: Pending[] = [{ root: mergeTree(def, loaded, changes, null, "") }];
  await runPipeline(ctx, def, pending);
  if (pending[0]!.error !== undefined) throw pending[0]!.error;
}

/**
 * Hands records of a virtual entity to its `save`, which writes real records through this same
 * pipeline (a plain write stores them at once; a workflow's commit calls this with its staged ones).
 */
export async function saveVirtual(
  ctx: WriteContext,
  def: AnyEntity,
  records: readonly Record<string, unknown>[],
): Promise<void> {
  const shared = withCache(ctx);
  const entityOf = (entity: string) => {
    const target = ctx.model.entity(entity);
    if (target === undefined) throw new Error(`${def.name}.save: there is no entity "${entity}".`);
    return target;
  };
  await def.storage!.save(records, {
    create: (entity, body) => createRecord(shared, entityOf(entity), body),
    createAll: async (entity, bodies) =>
      (await createRecords(shared, entityOf(entity), bodies)).map((outcome) => {
        if (outcome.error !== undefined) throw outcome.error;
        return outcome.guid;
      }),
    read: environment(shared, shared.cache).read,
  });
}

/** a rejection of a record that a commit is about to store: its save logic's, or a constraint's */
export interface CommitRejection {
  /** the record; none for what a virtual entity's `save` makes at commit (it has no staged record) */
  readonly entityGuid?: string;
  /** the property the rejection is about, when it names one */
  readonly property?: string;
  readonly message: string;
  /** the detail's code when it is not save logic's `SaveRejected` (`OutOfRange`, …) */
  readonly code?: string;
}

/**
 * Save logic of records as they stand (with their items), for a workflow's commit: the staged
 * state is checked as it will be stored, loaded in bulk, with one read cache for every hook.
 * Returns every rejection, each with the record it is about (an item's own Guid, not its
 * owner's), for the commit's `@workflow.userprompts`.
 */
export async function checkBeforeCommit(
  ctx: WriteContext,
  def: AnyEntity,
  guids: readonly string[],
  /** collects the Guids of every record checked (the records and their items) */
  checked?: Set<string>,
): Promise<CommitRejection[]> {
  const shared = withCache(ctx);
  const env = environment(shared, shared.cache);
  const rejections: CommitRejection[] = [];
  const trees = [...(await loadTrees(ctx.session, def, ctx.tenant.id, guids, { lock: false })).values()].map((loaded) =>
    mergeTree(def, loaded, {}, null, ""),
  );
  const nodes = trees.flatMap(itemsFirst);
  await preloadReads(nodes, "save", env);
  for (const tree of trees) {
    for (const node of itemsFirst(tree)) {
      checked?.add(node.record.Guid as string);
      const rejected: ErrorDetail[] = [];
      await runSaveHooks(node, env, rejected);
      for (const { message, target } of rejected) {
        const property = target?.startsWith(node.path) ? target.slice(node.path.length) : undefined;
        rejections.push({ entityGuid: node.record.Guid as string, message, ...(property && { property }) });
      }
    }
  }
  return rejections;
}

/** whether records of `def` are items of an owned collection: each is written as part of its owner (owned-item-writes.ts) */
const isItem = (ctx: WriteContext, def: AnyEntity) => ctx.model.owner(def.name) !== undefined;

/**
 * Creates a record (and its collection items) from a client's body; returns its Guid. An owned
 * collection's item (its body names its owner) is created as a deep write of its owner.
 */
export async function createRecord(ctx: WriteContext, def: AnyEntity, body: unknown): Promise<string> {
  if (isItem(ctx, def)) return createItem(ctx, def, body);
  const [outcome] = await createRecords(ctx, def, [body]);
  if (outcome!.error !== undefined) throw outcome!.error;
  return outcome!.guid;
}

/**
 * Applies a client's partial update (PATCH) to a record and its collections; 404 when it does
 * not exist. An owned collection's item is updated as a deep write of its owner.
 */
export async function updateRecord(context: WriteContext, def: AnyEntity, guid: string, body: unknown): Promise<void> {
  if (isItem(context, def)) return updateItem(context, def, guid, body);
  const ctx = withCache(context);
  const value = validated(ctx, def, body, false);
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenant.id, value, ctx.cache);
  await change(ctx, def, guid, value);
}

/**
 * Stores changes made by server code (a method body): values are already typed and references
 * are Guids, and read-only properties may change (`IsPosted` after `Post`). Business logic, the
 * constraints of every property (as a PATCH has them) and save logic hold as for any write.
 */
export async function saveChanges(ctx: WriteContext, def: AnyEntity, guid: string, changes: Body): Promise<void> {
  await change(ctx, def, guid, changes);
}

/**
 * Deletes a record with its owned collection items through the session's store (inside a
 * workflow: tombstones until commit); 404 when it does not exist. An owned collection's item is
 * deleted as a deep write of its owner, whose logic runs.
 */
export async function deleteRecord(ctx: WriteContext, def: AnyEntity, guid: string) {
  if (isItem(ctx, def)) return deleteItem(ctx, def, guid);
  const deleted = await ctx.session.store.remove(ctx.session, def, ctx.tenant.id, [guid]);
  if (deleted.length === 0) throw notFound(`${def.name}(${guid}) does not exist.`);
  // the record and its items are gone for the rest of the unit of work too
  if (ctx.cache !== undefined) forgetWithItems(ctx.cache, def);
}

/** drops what `cache` read of `entity` and of its collections' items, after records of them went */
export function forgetWithItems(cache: ReadCache, entity: AnyEntity): void {
  cache.forget(entity);
  for (const { field } of collectionsOf(entity)) forgetWithItems(cache, field.target);
}
