/**
 * Commit (spec 4.7): the staged state is checked, then applied to the base tables in the
 * caller's one transaction and cleared; the workflow stays open.
 *
 * 1. Conflicts: a staged change remembers the version and image of the base record it was made
 *    against. If the main record changed since, changes to different properties merge, while a
 *    change (or a delete) of a property that changed in the main data, or a change of a record
 *    deleted there, is refused: `400 StagedRecordChanged`, nothing stored.
 * 2. Save logic on every staged record as it will be stored: rejections are a `400`.
 * 3. A question still pending (raised now or earlier) is a `422`.
 * 4. Apply per entity with one statement each: tombstones deleted (items first), changed records
 *    updated property by property (what the workflow did not change keeps its main value),
 *    new records inserted (owners first); staged virtual records go to their entity's `save`.
 */
import {
  type AnyEntity,
  asJson,
  BASE_VERSION_COLUMN,
  baseStore,
  type CommitRejection,
  checkBeforeCommit,
  DELETED_COLUMN,
  inBaseImage,
  type Model,
  persistedColumns,
  type ReferenceField,
  recordSelectList,
  rowToRecord,
  type Session,
  saveVirtual,
  stagedChanged,
  stagedTableName,
  TENANT_COLUMN,
  tableName,
  tableQueries,
  VERSION_COLUMN,
  WORKFLOW_COLUMN,
  type WriteContext,
  withStore,
} from "@bizdata/core";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { WorkflowPrompts } from "./workflow-prompts.js";
import { closeWorkflow, expiredWorkflows } from "./workflow-store.js";
import { workflowPromptTable } from "./workflow-tables.js";

const id = (name: string) => sql.identifier(name);

/** entities ordered so that what a record references is stored before it (cycles keep model order) */
export function commitOrder(model: Model): AnyEntity[] {
  const ordered: AnyEntity[] = [];
  const visiting = new Set<AnyEntity>();
  const visit = (def: AnyEntity) => {
    if (ordered.includes(def) || visiting.has(def)) return;
    visiting.add(def);
    for (const c of persistedColumns(def)) {
      if (c.field.kind === "reference") visit(model.entity((c.field as ReferenceField).target)!);
    }
    ordered.push(def);
  };
  for (const def of model.entities.values()) visit(def);
  return ordered;
}

/** a staged change that the main data overtook */
export interface StagedConflict {
  readonly entity: string;
  readonly guid: string;
  /** the record was deleted in the main data */
  readonly deleted: boolean;
  /** properties changed both in the main data and by the workflow */
  readonly properties: readonly string[];
}

export type CommitOutcome =
  | { readonly kind: "committed"; readonly changed: number }
  | { readonly kind: "questionPending" }
  | { readonly kind: "conflict"; readonly conflicts: readonly StagedConflict[] }
  | { readonly kind: "rejected"; readonly rejections: readonly CommitRejection[] };

const stagedRows = (tenantId: string, workflowId: string) =>
  sql`s.${id(TENANT_COLUMN)} = ${tenantId} AND s.${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid`;

/** staged changes of records whose main version moved on since they were staged, and what collides */
async function conflictsOf(session: Session, def: AnyEntity, tenantId: string, workflowId: string) {
  const columns = persistedColumns(def).filter((c) => c.column !== "guid");
  const colliding = columns.map(
    (c) =>
      sql`CASE WHEN ${asJson("b", c.column)} <> ${inBaseImage(c.column)} AND (s.${id(DELETED_COLUMN)} OR ${stagedChanged(c.column)}) THEN ${c.path.join("/")} END`,
  );
  const rows = await session.query<{ guid: string; gone: boolean; deleting: boolean; properties: unknown }>(
    sql`SELECT s.guid::text AS guid, b.guid IS NULL AS gone, s.${id(DELETED_COLUMN)} AS deleting,
          array_to_string(ARRAY[${sql.join(colliding, sql`, `)}]::text[], ',') AS properties
        FROM ${id(stagedTableName(def))} AS s LEFT JOIN ${id(tableName(def))} AS b
          ON b.${id(TENANT_COLUMN)} = s.${id(TENANT_COLUMN)} AND b.guid = s.guid
        WHERE ${stagedRows(tenantId, workflowId)} AND s.${id(BASE_VERSION_COLUMN)} IS NOT NULL
          AND (b.guid IS NULL OR b.${id(VERSION_COLUMN)} <> s.${id(BASE_VERSION_COLUMN)})
        ORDER BY s.guid`,
  );
  return rows.flatMap((row): StagedConflict[] => {
    // deleted on both sides: nothing to lose
    if (row.gone) return row.deleting ? [] : [{ entity: def.name, guid: row.guid, deleted: true, properties: [] }];
    const properties = String(row.properties ?? "")
      .split(",")
      .filter((p) => p !== "");
    return properties.length === 0 ? [] : [{ entity: def.name, guid: row.guid, deleted: false, properties }];
  });
}

/** every staged change the main data overtook, for all stored entities of the model */
export async function stagedConflicts(
  session: Session,
  model: Model,
  tenantId: string,
  workflowId: string,
): Promise<StagedConflict[]> {
  const conflicts: StagedConflict[] = [];
  for (const def of model.entities.values()) {
    if (def.storage === undefined) conflicts.push(...(await conflictsOf(session, def, tenantId, workflowId)));
  }
  return conflicts;
}

async function stagedGuids(session: Session, def: AnyEntity, tenantId: string, workflowId: string) {
  const rows = await session.query<{ guid: string }>(
    sql`SELECT s.guid::text AS guid FROM ${id(stagedTableName(def))} AS s WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} ORDER BY s.guid`,
  );
  return rows.map((r) => r.guid);
}

/** records whose save logic runs on one bulk load: bounded, so memory stays flat for large workflows */
const CHECK_CHUNK = 1000;

/** runs save logic on every staged record (owners with their items, items staged alone on their own) */
export async function checkStaged(ctx: WriteContext, workflowId: string): Promise<CommitRejection[]> {
  const { model } = ctx;
  const rejections: CommitRejection[] = [];
  const checked = new Set<string>();
  for (const owned of [false, true]) {
    for (const def of model.entities.values()) {
      if ((model.owner(def.name) !== undefined) !== owned) continue;
      // an item staged with its owner was checked with it
      const guids = (await stagedGuids(ctx.session, def, ctx.tenant.id, workflowId)).filter((g) => !checked.has(g));
      for (let i = 0; i < guids.length; i += CHECK_CHUNK) {
        rejections.push(...(await checkBeforeCommit(ctx, def, guids.slice(i, i + CHECK_CHUNK), checked)));
      }
    }
  }
  return rejections;
}

/**
 * Commits a workflow's staged state. `ctx.session` is the workflow step's staged session and
 * `ctx.prompts` its prompts; every statement runs in that session's transaction, so a result
 * other than "committed" leaves the main data as it was (the caller rolls back).
 */
export async function commitWorkflow(
  ctx: WriteContext & { readonly prompts: WorkflowPrompts },
  workflowId: string,
): Promise<CommitOutcome> {
  const { model, tenant } = ctx;
  const conflicts = await stagedConflicts(ctx.session, model, tenant.id, workflowId);
  if (conflicts.length > 0) {
    for (const conflict of conflicts) {
      const properties = conflict.properties.length === 0 ? [undefined] : conflict.properties;
      for (const property of properties) {
        ctx.prompts.message({
          severity: "error",
          entityGuid: conflict.guid,
          ...(property !== undefined && { property }),
          text: conflict.deleted
            ? `${conflict.entity}(${conflict.guid}) was deleted in the main data after this workflow changed it.`
            : `${conflict.entity}(${conflict.guid}).${property} was changed in the main data after this workflow changed it.`,
        });
      }
    }
    return { kind: "conflict", conflicts };
  }
  // save logic sees the staged state as it will be stored
  const rejections = await checkStaged(ctx, workflowId);
  if (rejections.length > 0) {
    for (const r of rejections) {
      ctx.prompts.message({
        severity: "error",
        text: r.message,
        entityGuid: r.entityGuid,
        ...(r.property && { property: r.property }),
      });
    }
    return { kind: "rejected", rejections };
  }
  if (ctx.prompts.hasPending) return { kind: "questionPending" };
  const base = withStore(ctx.session, baseStore);
  const changed = await applyStaged(base, model, tenant.id, workflowId, (def, records) =>
    saveVirtual({ ...ctx, session: base }, def, records),
  );
  return { kind: "committed", changed };
}

/** one statement per entity and kind of change; returns how many rows changed */
async function applyEntity(
  session: Session,
  def: AnyEntity,
  tenantId: string,
  workflowId: string,
  kind: "delete" | "update" | "insert",
): Promise<number> {
  const table = id(tableName(def));
  const staged = id(stagedTableName(def));
  const match = sql`b.${id(TENANT_COLUMN)} = s.${id(TENANT_COLUMN)} AND b.guid = s.guid`;
  const columns = persistedColumns(def).map((c) => c.column);
  let statement: SQL;
  switch (kind) {
    case "delete":
      statement = sql`DELETE FROM ${table} AS b USING ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND s.${id(DELETED_COLUMN)} AND ${match} RETURNING b.guid`;
      break;
    case "update": {
      // property by property: what the workflow left alone keeps the main data's value (a merge)
      const set = columns
        .filter((c) => c !== "guid")
        .map((c) => sql`${id(c)} = CASE WHEN ${stagedChanged(c)} THEN s.${id(c)} ELSE b.${id(c)} END`);
      set.push(sql`${id(VERSION_COLUMN)} = b.${id(VERSION_COLUMN)} + 1`);
      statement = sql`UPDATE ${table} AS b SET ${sql.join(set, sql`, `)} FROM ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NOT NULL AND ${match}
        RETURNING b.guid`;
      break;
    }
    case "insert": {
      const list = sql.join([TENANT_COLUMN, ...columns].map(id), sql`, `);
      statement = sql`INSERT INTO ${table} (${list}) SELECT ${sql.join(
        [TENANT_COLUMN, ...columns].map((c) => sql`s.${id(c)}`),
        sql`, `,
      )} FROM ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NULL
        ORDER BY s.guid RETURNING guid`;
      break;
    }
  }
  return (await session.query(statement)).length;
}

/**
 * Applies and clears the staged state (plain session: the base tables). Staged records of virtual
 * entities go to `saveVirtual` last, so what their `save` creates can use everything else committed.
 */
export async function applyStaged(
  session: Session,
  model: Model,
  tenantId: string,
  workflowId: string,
  saveStagedVirtual: (def: AnyEntity, records: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  const order = commitOrder(model).filter((def) => def.storage === undefined);
  let changed = 0;
  for (const def of [...order].reverse()) changed += await applyEntity(session, def, tenantId, workflowId, "delete");
  for (const def of order) {
    changed += await applyEntity(session, def, tenantId, workflowId, "update");
    changed += await applyEntity(session, def, tenantId, workflowId, "insert");
  }
  for (const def of model.entities.values()) {
    if (def.storage === undefined) continue;
    const rows = await session.query(
      sql`SELECT ${recordSelectList(def, "s")} FROM ${id(stagedTableName(def))} AS s WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} ORDER BY s.guid`,
    );
    if (rows.length > 0)
      await saveStagedVirtual(
        def,
        rows.map((row) => rowToRecord(def, row)),
      );
    changed += rows.length;
  }
  // answers stay: the workflow remains open and its next commit asks nothing already answered
  await discardStaged(session, model, tenantId, workflowId, { keepPrompts: true });
  return changed;
}

/** removes a workflow's staged state (after commit, on close, on expiry); its questions too unless kept */
export async function discardStaged(
  session: Session,
  model: Model,
  tenantId: string,
  workflowId: string,
  options: { keepPrompts?: boolean } = {},
): Promise<void> {
  if (!options.keepPrompts) {
    await tableQueries(session)
      .delete(workflowPromptTable)
      .where(and(eq(workflowPromptTable.tenantId, tenantId), eq(workflowPromptTable.workflowId, workflowId)));
  }
  for (const def of model.entities.values()) {
    await session.query(sql`DELETE FROM ${id(stagedTableName(def))} AS s WHERE ${stagedRows(tenantId, workflowId)}`);
  }
}

/**
 * Closes this tenant's workflows whose time-to-live ran out and removes their staged state
 * (api-conventions: Workflows). Run lazily when the tenant starts a workflow, so no sweeper has
 * to cross tenants past row-level security.
 */
export async function sweepExpired(session: Session, model: Model, tenantId: string): Promise<number> {
  const expired = await expiredWorkflows(session, tenantId);
  for (const workflowId of expired) {
    await discardStaged(session, model, tenantId, workflowId);
    await closeWorkflow(session, tenantId, workflowId);
  }
  return expired.length;
}
