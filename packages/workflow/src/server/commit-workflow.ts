/**
 * Commit (spec 4.7): the staged state is checked, then applied to the base tables in the
 * caller's one transaction and cleared; the workflow stays open.
 *
 * 0. Rights: the caller may, now, make every kind of write the workflow staged of every entity
 *    (staged-rights.ts), or it is a `403`, nothing stored.
 * 1. Conflicts: a staged change remembers the version and image of the base record it was made
 *    against. If the main record changed since, changes to different properties merge, while a
 *    change (or a delete) of a property that changed in the main data, or a change of a record
 *    deleted there, is refused: `400 StagedRecordChanged`, nothing stored.
 * 2. Save logic on every staged record as it will be stored: rejections are a `400`.
 * 3. A question still pending (raised now or earlier) is a `422`.
 * 4. Apply per entity with one statement each: tombstones deleted (items first), changed records
 *    updated property by property (what the workflow did not change keeps its main value),
 *    new records inserted (owners first); staged virtual records go to their entity's `save`.
 *
 * Every step is a set operation over the staged rows of an entity, and only of the entities the
 * workflow staged something of (one statement finds them first): a commit costs a few statements
 * per entity it touches, whether it commits a hundred changes or ten thousand.
 */
import {
  type AnyEntity,
  asJson,
  BASE_VERSION_COLUMN,
  baseStore,
  type CommitRejection,
  cascadedItems,
  checkBeforeCommit,
  collectionsOf,
  createdValues,
  DELETED_COLUMN,
  inBaseImage,
  logWritten,
  type Model,
  ownerColumn,
  persistedColumns,
  ReadCache,
  type RecordStore,
  type ReferenceField,
  recordSelectList,
  rowToRecord,
  ServiceError,
  type Session,
  saveVirtual,
  stagedChanged,
  stagedTableName,
  TENANT_COLUMN,
  tableName,
  tableQueries,
  VERSION_COLUMN,
  valuesJson,
  WORKFLOW_COLUMN,
  type WriteContext,
  withStore,
  writeBehind,
} from "@bizdata/core";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type Rights, requireStagedRights } from "./staged-rights.js";
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

/** what a workflow has staged of one entity: tombstones, new records, and changes to existing ones */
export interface StagedCounts {
  readonly deleted: number;
  readonly created: number;
  readonly changed: number;
}

/**
 * What the workflow staged, per entity that it staged anything of: one statement over every
 * staged table, so that everything after it touches only those (the fixed cost of a commit does
 * not grow with the number of entities in the model).
 */
export async function stagedEntities(
  session: Session,
  model: Model,
  tenantId: string,
  workflowId: string,
): Promise<Map<AnyEntity, StagedCounts>> {
  const defs = [...model.entities.values()];
  const counts = defs.map(
    (def, i) =>
      sql`SELECT ${i}::int AS entity, count(*) FILTER (WHERE s.${id(DELETED_COLUMN)})::int AS deleted,
        count(*) FILTER (WHERE NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NULL)::int AS created,
        count(*) FILTER (WHERE NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NOT NULL)::int AS changed
        FROM ${id(stagedTableName(def))} AS s WHERE ${stagedRows(tenantId, workflowId)}`,
  );
  const rows = await session.query<{ entity: number } & StagedCounts>(sql.join(counts, sql` UNION ALL `));
  const staged = new Map<AnyEntity, StagedCounts>();
  for (const { entity, deleted, created, changed } of rows) {
    if (deleted + created + changed > 0) staged.set(defs[entity]!, { deleted, created, changed });
  }
  return staged;
}

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

/** every staged change the main data overtook, of the stored entities the workflow changed or deleted records of */
export async function stagedConflicts(
  session: Session,
  staged: ReadonlyMap<AnyEntity, StagedCounts>,
  tenantId: string,
  workflowId: string,
): Promise<StagedConflict[]> {
  const conflicts: StagedConflict[] = [];
  for (const [def, counts] of staged) {
    if (def.storage === undefined && counts.changed + counts.deleted > 0)
      conflicts.push(...(await conflictsOf(session, def, tenantId, workflowId)));
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

/** whether any save hook would run for a record of `def` or its items (recursively) in this tenant */
function hasSaveLogic(def: AnyEntity, features: ReadonlySet<string>): boolean {
  const enabled = (def.hooks.save ?? []).some((h) => h.feature === undefined || features.has(h.feature));
  return enabled || collectionsOf(def).some(({ field }) => hasSaveLogic(field.target, features));
}

/**
 * Runs save logic on every staged record (owners with their items, items staged alone on their
 * own), in chunks that are each loaded in bulk with what their hooks read. Entities without any
 * save logic for the tenant are not loaded at all.
 */
export async function checkStaged(
  ctx: WriteContext,
  workflowId: string,
  staged: ReadonlyMap<AnyEntity, StagedCounts>,
): Promise<CommitRejection[]> {
  const { model } = ctx;
  const rejections: CommitRejection[] = [];
  const checked = new Set<string>();
  // one read cache for the whole commit: a customer that a thousand orders read is read once
  const shared = { ...ctx, cache: ctx.cache ?? new ReadCache() };
  for (const owned of [false, true]) {
    for (const [def, counts] of staged) {
      if ((model.owner(def.name) !== undefined) !== owned) continue;
      if (counts.created + counts.changed === 0 || !hasSaveLogic(def, ctx.tenant.features)) continue;
      // an item staged with its owner was checked with it
      const guids = (await stagedGuids(ctx.session, def, ctx.tenant.id, workflowId)).filter((g) => !checked.has(g));
      for (let i = 0; i < guids.length; i += CHECK_CHUNK) {
        rejections.push(...(await checkBeforeCommit(shared, def, guids.slice(i, i + CHECK_CHUNK), checked)));
      }
    }
  }
  return rejections;
}

/**
 * Commits a workflow's staged state for a caller with the rights `may`. `ctx.session` is the
 * workflow step's staged session and `ctx.prompts` its prompts; every statement runs in that
 * session's transaction, so a result other than "committed" (or a 403 thrown) leaves the main
 * data as it was (the caller rolls back). The staged records go to the base tables through
 * `base` (the database's store: it says whether the writes are logged), each logged as the
 * step's author made it (`Session.changes`): the change log has them from this commit on, and
 * nothing of what was staged before.
 */
export async function commitWorkflow(
  ctx: WriteContext & { readonly prompts: WorkflowPrompts },
  workflowId: string,
  may: Rights,
  base: RecordStore = baseStore,
): Promise<CommitOutcome> {
  const { model, tenant } = ctx;
  const staged = await stagedEntities(ctx.session, model, tenant.id, workflowId);
  requireStagedRights(may, model, staged, "commit");
  const conflicts = await stagedConflicts(ctx.session, staged, tenant.id, workflowId);
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
  const rejected = (rejections: readonly CommitRejection[]): CommitOutcome => {
    for (const r of rejections) {
      ctx.prompts.message({
        severity: "error",
        text: r.message,
        ...(r.entityGuid !== undefined && { entityGuid: r.entityGuid }),
        ...(r.property && { property: r.property }),
      });
    }
    return { kind: "rejected", rejections };
  };
  // save logic sees the staged state as it will be stored
  const rejections = await checkStaged(ctx, workflowId, staged);
  if (rejections.length > 0) return rejected(rejections);
  if (ctx.prompts.hasPending) return { kind: "questionPending" };
  // what virtual records' `save` creates goes to the base tables, its inserts together
  const writes = writeBehind(withStore(ctx.session, base));
  try {
    const changed = await applyStaged(writes.session, model, staged, tenant.id, workflowId, (def, records) =>
      saveVirtual({ ...ctx, session: writes.session }, def, records),
    );
    await writes.flush();
    return { kind: "committed", changed };
  } catch (err) {
    // what a virtual entity's `save` makes breaks a constraint or its save logic: rejected as a
    // staged record is (the caller rolls back what was applied), its details in the prompts
    if (!(err instanceof ServiceError) || err.code !== "ValidationError") throw err;
    return rejected(
      err.details.map(({ code, message, target }) => ({
        message,
        ...(target !== undefined && { property: target }),
        ...(code !== "SaveRejected" && { code }),
      })),
    );
  }
}

/** the top-level properties the workflow changed in the staged row `s`, as a `text[]` */
function stagedProperties(def: AnyEntity): SQL {
  const byProperty = new Map<string, SQL[]>();
  for (const c of persistedColumns(def)) {
    if (c.column === "guid") continue;
    byProperty.set(c.path[0]!, [...(byProperty.get(c.path[0]!) ?? []), stagedChanged(c.column)]);
  }
  const names = [...byProperty].map(
    ([name, changed]) => sql`CASE WHEN ${sql.join(changed, sql` OR `)} THEN ${name}::text END`,
  );
  return sql`array_remove(ARRAY[${sql.join(names, sql`, `)}]::text[], NULL)`;
}

/**
 * One statement per entity and kind of change; returns how many rows changed. Where the base
 * tables' writes are logged, each is a CTE whose rows the statement logs (logged-writes.ts): a
 * delete with the items it takes with it, an update with the properties the workflow changed.
 */
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
  const logged = session.store.changeLog;
  const owner = ownerColumn(session.changes, def);
  const log = (rows: Parameters<typeof logWritten>[1]) => logWritten(tenantId, rows, session.changes);
  let statement: SQL;
  switch (kind) {
    case "delete": {
      const remove = sql`DELETE FROM ${table} AS b USING ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND s.${id(DELETED_COLUMN)} AND ${match}`;
      if (!logged) {
        statement = sql`${remove} RETURNING b.guid`;
        break;
      }
      const items = cascadedItems(def, "d", tenantId);
      const deleted = { from: "d", def, kind: "delete", owner } as const;
      const ctes = [sql`d AS (${remove} RETURNING b.*)`, ...items.ctes, sql`l AS (${log([deleted, ...items.rows])})`];
      statement = sql`WITH ${sql.join(ctes, sql`, `)} SELECT guid FROM d`;
      break;
    }
    case "update": {
      // property by property: what the workflow left alone keeps the main data's value (a merge)
      const set = columns
        .filter((c) => c !== "guid")
        .map((c) => sql`${id(c)} = CASE WHEN ${stagedChanged(c)} THEN s.${id(c)} ELSE b.${id(c)} END`);
      set.push(sql`${id(VERSION_COLUMN)} = b.${id(VERSION_COLUMN)} + 1`);
      const update = sql`UPDATE ${table} AS b SET ${sql.join(set, sql`, `)} FROM ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NOT NULL AND ${match}`;
      if (!logged) {
        statement = sql`${update} RETURNING b.guid`;
        break;
      }
      // the values of the properties changed, where the entity keeps them: of each row its own
      const data =
        def.changeLog === "values"
          ? `(SELECT json_object_agg(e.key, e.value) FROM json_each(${valuesJson(def, "r")}) AS e WHERE e.key = ANY(r."$changed"))`
          : undefined;
      const changed = { from: "r", def, kind: "update", owner, properties: sql`r."$changed"`, data } as const;
      statement = sql`WITH r AS (${update} RETURNING b.*, ${stagedProperties(def)} AS "$changed") ${log([changed])} RETURNING key`;
      break;
    }
    case "insert": {
      const list = sql.join([TENANT_COLUMN, ...columns].map(id), sql`, `);
      const insert = sql`INSERT INTO ${table} (${list}) SELECT ${sql.join(
        [TENANT_COLUMN, ...columns].map((c) => sql`s.${id(c)}`),
        sql`, `,
      )} FROM ${staged} AS s
        WHERE ${stagedRows(tenantId, workflowId)} AND NOT s.${id(DELETED_COLUMN)} AND s.${id(BASE_VERSION_COLUMN)} IS NULL
        ORDER BY s.guid`;
      if (!logged) {
        statement = sql`${insert} RETURNING guid`;
        break;
      }
      const created = { from: "r", def, kind: "create", owner, data: createdValues(def, "r") } as const;
      statement = sql`WITH r AS (${insert} RETURNING *) ${log([created])} RETURNING key`;
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
  staged: ReadonlyMap<AnyEntity, StagedCounts>,
  tenantId: string,
  workflowId: string,
  saveStagedVirtual: (def: AnyEntity, records: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  const order = commitOrder(model).filter((def) => def.storage === undefined && staged.has(def));
  const apply = (def: AnyEntity, kind: "delete" | "update" | "insert") =>
    applyEntity(session, def, tenantId, workflowId, kind);
  let changed = 0;
  for (const def of [...order].reverse()) if (staged.get(def)!.deleted > 0) changed += await apply(def, "delete");
  for (const def of order) {
    if (staged.get(def)!.changed > 0) changed += await apply(def, "update");
    if (staged.get(def)!.created > 0) changed += await apply(def, "insert");
  }
  for (const [def, counts] of staged) {
    if (def.storage === undefined || counts.created === 0) continue;
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
  await discardStaged(session, model, tenantId, workflowId, { keepPrompts: true, staged });
  return changed;
}

/** removes a workflow's staged state (after commit, on close, on expiry); its questions too unless kept */
export async function discardStaged(
  session: Session,
  model: Model,
  tenantId: string,
  workflowId: string,
  options: { keepPrompts?: boolean; staged?: ReadonlyMap<AnyEntity, StagedCounts> } = {},
): Promise<void> {
  if (!options.keepPrompts) {
    await tableQueries(session)
      .delete(workflowPromptTable)
      .where(and(eq(workflowPromptTable.tenantId, tenantId), eq(workflowPromptTable.workflowId, workflowId)));
  }
  const staged = options.staged ?? (await stagedEntities(session, model, tenantId, workflowId));
  for (const def of staged.keys()) {
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
