/**
 * Creates, updates and deletes one record with its owned collections (deep writes), inside the
 * caller's tenant transaction: body → validation → natural-key resolution → storage. Business
 * logic and save logic slot in between resolution and storage (EntityHooks).
 */
import { randomUUID } from "node:crypto";
import { notFound, validationError } from "../errors.js";
import type { CollectionField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { columnOf } from "../storage/naming.js";
import { collectionsOf } from "../storage/record-rows.js";
import {
  collectionItemGuids,
  deleteRecords,
  insertRecords,
  loadRecords,
  updateRecordRow as updateRow,
} from "../storage/record-store.js";
import { type ValidateOptions, validateWrite } from "../validation/index.js";
import { resolveReferences } from "./natural-keys.js";

export interface WriteContext {
  readonly session: Session;
  readonly model: Model;
  readonly tenantId: string;
  readonly options?: ValidateOptions;
}

type Body = Record<string, unknown>;

const validated = (ctx: WriteContext, def: AnyEntity, body: unknown, mode: "create" | "update"): Body => {
  const result = validateWrite(ctx.model, def, body, mode, ctx.options);
  if (!result.success) throw validationError(result.issues);
  return result.value;
};

const withTitle = (def: AnyEntity, record: Body, explicit: boolean): Body =>
  explicit || def.title === undefined ? record : { ...record, Title: def.title(record as never) ?? null };

/** the persisted part of a validated body: collections are written separately */
const withoutCollections = (def: AnyEntity, body: Body): Body => {
  const out: Body = {};
  for (const [k, v] of Object.entries(body)) {
    if ((def.fields[k] as { kind?: string } | undefined)?.kind !== "collection") out[k] = v;
  }
  return out;
};

async function insertTree(ctx: WriteContext, def: AnyEntity, body: Body): Promise<string> {
  const guid = (body.Guid as string | undefined) ?? randomUUID();
  const record = withTitle(def, { ...withoutCollections(def, body), Guid: guid }, Object.hasOwn(body, "Title"));
  await insertRecords(ctx.session, def, ctx.tenantId, [record]);
  for (const { name, field } of collectionsOf(def)) {
    for (const item of (body[name] as Body[] | null | undefined) ?? []) {
      await insertTree(ctx, field.target, { ...item, [field.inverse]: guid });
    }
  }
  return guid;
}

/** Creates a record (and its collection items); returns its Guid. */
export async function createRecord(ctx: WriteContext, def: AnyEntity, body: unknown): Promise<string> {
  const value = validated(ctx, def, body, "create");
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenantId, value);
  return insertTree(ctx, def, value);
}

/**
 * Writes a collection as given (OData deep update): items with a known Guid are updated, the
 * others created, and existing items not mentioned are removed.
 */
async function replaceCollection(ctx: WriteContext, ownerGuid: string, field: CollectionField, items: Body[]) {
  const item = field.target;
  const inverseColumn = columnOf(item, [field.inverse])!.column;
  const existing = new Set(await collectionItemGuids(ctx.session, item, inverseColumn, ctx.tenantId, ownerGuid));
  const kept = new Set<string>();
  for (const given of items) {
    const guid = given.Guid as string | undefined;
    if (guid !== undefined && existing.has(guid)) {
      kept.add(guid);
      const { Guid: _, ...changes } = given;
      await updateTree(ctx, item, guid, changes);
    } else {
      await insertTree(ctx, item, { ...given, [field.inverse]: ownerGuid });
    }
  }
  await deleteRecords(
    ctx.session,
    item,
    ctx.tenantId,
    [...existing].filter((g) => !kept.has(g)),
  );
}

async function updateTree(ctx: WriteContext, def: AnyEntity, guid: string, changes: Body): Promise<void> {
  const [current] = await loadRecords(ctx.session, def, ctx.tenantId, [guid], { forUpdate: true });
  if (current === undefined) throw notFound(`${def.name}(${guid}) does not exist.`);
  const scalar = withoutCollections(def, changes);
  // a partial complex value changes only the members given
  for (const [k, v] of Object.entries(scalar)) {
    const merged = current[k];
    if (v !== null && typeof v === "object" && merged !== null && typeof merged === "object") {
      scalar[k] = { ...(merged as Body), ...(v as Body) };
    }
  }
  const record = withTitle(def, { ...current, ...scalar }, Object.hasOwn(changes, "Title"));
  await updateRow(ctx.session, def, ctx.tenantId, guid, record);
  for (const { name, field } of collectionsOf(def)) {
    if (Object.hasOwn(changes, name)) await replaceCollection(ctx, guid, field, (changes[name] as Body[] | null) ?? []);
  }
}

/** Applies a partial update (PATCH) to a record and its collections; 404 when it does not exist. */
export async function updateRecord(ctx: WriteContext, def: AnyEntity, guid: string, body: unknown): Promise<void> {
  const value = validated(ctx, def, body, "update");
  await resolveReferences(ctx.session, ctx.model, def, ctx.tenantId, value);
  await updateTree(ctx, def, guid, value);
}

/** Deletes a record with its owned collection items; 404 when it does not exist. */
export async function deleteRecord(ctx: WriteContext, def: AnyEntity, guid: string): Promise<void> {
  const deleted = await deleteRecords(ctx.session, def, ctx.tenantId, [guid]);
  if (deleted.length === 0) throw notFound(`${def.name}(${guid}) does not exist.`);
}
