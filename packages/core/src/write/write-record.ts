/**
 * The write pipeline for one record and its owned collections (architecture: body →
 * deserialization hooks → validation → natural-key resolution → business logic on the current
 * state → save logic → storage), inside the caller's tenant transaction. Business logic and save
 * logic run for items before their owner, so an owner's logic sees its items as they will be.
 */
import { type ErrorDetail, notFound, validationError } from "../errors.js";
import type { TenantInfo } from "../model/hook-context.js";
import type { AnyEntity, Model } from "../model/model.js";
import type { UserPrompts } from "../prompts/prompts.js";
import type { Session } from "../storage/database.js";
import { collectionsOf } from "../storage/record-rows.js";
import { loadRecords } from "../storage/record-store.js";
import { type ValidateOptions, validateWrite } from "../validation/index.js";
import { type ReferenceCache, resolveReferences } from "./natural-keys.js";
import { saveTree } from "./persist-tree.js";
import { decimalsAsNumbers } from "./record-numbers.js";
import { type Body, itemsFirst, loadTree, loadTrees, mergeTree, type RecordNode } from "./record-tree.js";
import { type HookEnvironment, runDeserializeHooks, runLogicHooks, runSaveHooks } from "./run-hooks.js";

export interface WriteContext {
  readonly session: Session;
  readonly model: Model;
  readonly tenant: TenantInfo;
  /** where messages and questions go: collected for a plain request, kept by a workflow */
  readonly prompts: UserPrompts;
  readonly options?: ValidateOptions;
  /** lookups shared by the writes of one changeset (prefetchReferences); each write has its own otherwise */
  readonly references?: ReferenceCache;
}

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

function environment(ctx: WriteContext): HookEnvironment {
  const cache = new Map<string, Promise<Record<string, unknown> | null>>();
  return {
    tenant: ctx.tenant,
    prompts: ctx.prompts,
    read: (entity, guid) => {
      const def = ctx.model.entity(entity);
      if (def === undefined) throw new Error(`read(): there is no entity "${entity}".`);
      const key = `${entity}/${guid}`;
      let hit = cache.get(key);
      if (hit === undefined) {
        hit = loadRecords(ctx.session, def, ctx.tenant.id, [guid]).then(([r]) => r ?? null);
        cache.set(key, hit);
      }
      return hit;
    },
  };
}

const withTitle = (node: RecordNode) => {
  const def = node.entity;
  if (def.title !== undefined && !node.changed.has("Title"))
    node.record.Title = def.title(node.record as never) ?? null;
};

/** a client's body: deserialization hooks, validation, natural keys */
async function fromClient(ctx: WriteContext, def: AnyEntity, body: unknown, isCreate: boolean): Promise<Body> {
  const result = validateWrite(
    ctx.model,
    def,
    deserialize(ctx, def, body, isCreate),
    isCreate ? "create" : "update",
    ctx.options,
  );
  if (!result.success) throw validationError(result.issues);
  const value = result.value;
  decimalsAsNumbers(def, value);
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenant.id, value, ctx.references);
  return value;
}

/** merges `value` into the stored state (or a new record), runs logic and save logic, stores the result */
async function store(ctx: WriteContext, def: AnyEntity, value: Body, guid: string | undefined): Promise<RecordNode> {
  const isCreate = guid === undefined;
  const loaded = isCreate ? undefined : await loadTree(ctx.session, def, ctx.tenant.id, guid);
  if (!isCreate && loaded === undefined) throw notFound(`${def.name}(${guid}) does not exist.`);
  const root = mergeTree(def, loaded, value, null, "");
  const env = environment(ctx);
  const nodes = itemsFirst(root);
  for (const node of nodes) {
    // an item that changed marks its owner's collection as changed, before the owner's logic runs
    if (node.owner && (node.previous === null || node.changed.size > 0)) {
      const collection = [...node.owner.items].find(([, items]) => items.includes(node))?.[0];
      if (collection) node.owner.changed.add(collection);
    }
    if (node.previous === null || node.changed.size > 0) await runLogicHooks(node, env);
    withTitle(node);
  }
  if (ctx.session.store.defersSave) {
    // a workflow stages the change; save logic (and a virtual entity's save) runs when it commits
    await saveTree(ctx.session, ctx.tenant.id, root);
    return root;
  }
  await runSaveLogic(nodes, env);
  if (def.storage !== undefined) await saveVirtual(ctx, def, [root.record]);
  else await saveTree(ctx.session, ctx.tenant.id, root);
  // what this write stored may answer (or change the answer to) a later lookup of the changeset
  for (const node of nodes) ctx.references?.delete(node.entity);
  return root;
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
  const env = environment(ctx);
  await def.storage!.save(records, {
    create: (entity, body) => {
      const target = ctx.model.entity(entity);
      if (target === undefined) throw new Error(`${def.name}.save: there is no entity "${entity}".`);
      return createRecord(ctx, target, body);
    },
    read: env.read,
  });
}

/** save logic of every record of a tree; rejections become one 400 with a detail each */
async function runSaveLogic(nodes: readonly RecordNode[], env: HookEnvironment): Promise<void> {
  const rejected: ErrorDetail[] = [];
  for (const node of nodes) await runSaveHooks(node, env, rejected);
  if (rejected.length > 0) throw validationError(rejected, "The record cannot be saved.");
}

/** a save-logic rejection of a record that a commit is about to store */
export interface CommitRejection {
  readonly entityGuid: string;
  /** the property the rejection is about, when it names one */
  readonly property?: string;
  readonly message: string;
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
  const env = environment(ctx);
  const rejections: CommitRejection[] = [];
  for (const loaded of (await loadTrees(ctx.session, def, ctx.tenant.id, guids, { lock: false })).values()) {
    for (const node of itemsFirst(mergeTree(def, loaded, {}, null, ""))) {
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

/** Creates a record (and its collection items) from a client's body; returns its Guid. */
export async function createRecord(ctx: WriteContext, def: AnyEntity, body: unknown): Promise<string> {
  return (await store(ctx, def, await fromClient(ctx, def, body, true), undefined)).record.Guid as string;
}

/** Applies a client's partial update (PATCH) to a record and its collections; 404 when it does not exist. */
export async function updateRecord(ctx: WriteContext, def: AnyEntity, guid: string, body: unknown): Promise<void> {
  await store(ctx, def, await fromClient(ctx, def, body, false), guid);
}

/**
 * Stores changes made by server code (a method body): values are already typed and references
 * are Guids, and read-only properties may change (`IsPosted` after `Post`). Business logic and
 * save logic run as for any write.
 */
export async function saveChanges(ctx: WriteContext, def: AnyEntity, guid: string, changes: Body): Promise<void> {
  await store(ctx, def, changes, guid);
}

/**
 * Deletes a record with its owned collection items through the session's store (inside a
 * workflow: tombstones until commit); 404 when it does not exist.
 */
export async function deleteRecord(ctx: Pick<WriteContext, "session" | "tenant">, def: AnyEntity, guid: string) {
  const deleted = await ctx.session.store.remove(ctx.session, def, ctx.tenant.id, [guid]);
  if (deleted.length === 0) throw notFound(`${def.name}(${guid}) does not exist.`);
}
