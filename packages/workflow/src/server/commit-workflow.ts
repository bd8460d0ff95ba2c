/**
 * Commit (spec 4.7): the staged state is checked by save logic as it will be stored (a rejection
 * is a 400, nothing stored), then applied to the base tables in one transaction (after-images
 * upserted owners first, tombstones deleted items first) and cleared. The workflow stays open.
 */
import {
  type AnyEntity,
  checkBeforeCommit,
  DELETED_COLUMN,
  type Model,
  persistedColumns,
  type ReferenceField,
  rowToRecord,
  type Session,
  stagedTableName,
  TENANT_COLUMN,
  tableName,
  WORKFLOW_COLUMN,
  type WriteContext,
} from "@bizdata/core";
import { sql } from "drizzle-orm";

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

async function stagedGuids(session: Session, def: AnyEntity, tenantId: string, workflowId: string) {
  return session.query<{ guid: string }>(
    sql`SELECT guid::text AS guid FROM ${id(stagedTableName(def))} WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND ${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid AND NOT ${id(DELETED_COLUMN)}`,
  );
}

/** runs save logic on every staged record; throws the 400 of the first rejection */
export async function checkStaged(ctx: WriteContext, workflowId: string): Promise<void> {
  const { model } = ctx;
  const roots = new Set<string>();
  for (const def of model.entities.values()) {
    if (model.owner(def.name)) continue;
    for (const { guid } of await stagedGuids(ctx.session, def, ctx.tenant.id, workflowId)) {
      roots.add(guid);
      await checkBeforeCommit(ctx, def, guid);
    }
  }
  // an item staged on its own (its owner unchanged) is checked on its own
  for (const def of model.entities.values()) {
    const owner = model.owner(def.name);
    if (!owner) continue;
    for (const { guid } of await stagedGuids(ctx.session, def, ctx.tenant.id, workflowId)) {
      if (!roots.has(guid)) await checkBeforeCommit(ctx, def, guid);
    }
  }
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
  saveVirtual: (def: AnyEntity, records: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  const order = commitOrder(model).filter((def) => def.storage === undefined);
  let changed = 0;
  for (const def of [...order].reverse()) {
    const rows = await session.query(
      sql`DELETE FROM ${id(tableName(def))} AS b USING ${id(stagedTableName(def))} AS s
          WHERE s.${id(TENANT_COLUMN)} = ${tenantId} AND s.${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid AND s.${id(DELETED_COLUMN)}
            AND b.${id(TENANT_COLUMN)} = s.${id(TENANT_COLUMN)} AND b.guid = s.guid RETURNING b.guid`,
    );
    changed += rows.length;
  }
  for (const def of order) {
    const columns = [TENANT_COLUMN, ...persistedColumns(def).map((c) => c.column)];
    const list = sql.join(columns.map(id), sql`, `);
    const updates = sql.join(
      columns.filter((c) => c !== TENANT_COLUMN && c !== "guid").map((c) => sql`${id(c)} = EXCLUDED.${id(c)}`),
      sql`, `,
    );
    const rows = await session.query(
      sql`INSERT INTO ${id(tableName(def))} (${list}) SELECT ${list} FROM ${id(stagedTableName(def))}
          WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND ${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid AND NOT ${id(DELETED_COLUMN)}
          ORDER BY guid
          ON CONFLICT (${id(TENANT_COLUMN)}, guid) DO UPDATE SET ${updates} RETURNING guid`,
    );
    changed += rows.length;
  }
  for (const def of model.entities.values()) {
    if (def.storage === undefined) continue;
    const columns = sql.join(
      persistedColumns(def).map((c) => id(c.column)),
      sql`, `,
    );
    const rows = await session.query(
      sql`SELECT ${columns} FROM ${id(stagedTableName(def))} WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND ${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid AND NOT ${id(DELETED_COLUMN)} ORDER BY guid`,
    );
    if (rows.length > 0)
      await saveVirtual(
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
    await session.query({
      sql: "DELETE FROM bizdata_workflow_prompt WHERE tenant_id = $1 AND workflow_id = $2::uuid",
      params: [tenantId, workflowId],
    });
  }
  for (const def of model.entities.values()) {
    await session.query(
      sql`DELETE FROM ${id(stagedTableName(def))} WHERE ${id(TENANT_COLUMN)} = ${tenantId} AND ${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid`,
    );
  }
}

/**
 * Closes this tenant's workflows whose time-to-live ran out and removes their staged state
 * (api-conventions: Workflows). Run lazily when the tenant starts a workflow, so no sweeper has
 * to cross tenants past row-level security.
 */
export async function sweepExpired(session: Session, model: Model, tenantId: string): Promise<number> {
  const expired = await session.query<{ id: string }>({
    sql: "SELECT id::text AS id FROM bizdata_workflow WHERE tenant_id = $1 AND NOT closed AND expires_at <= now() FOR UPDATE SKIP LOCKED",
    params: [tenantId],
  });
  for (const { id: workflowId } of expired) {
    await discardStaged(session, model, tenantId, workflowId);
    await session.query({
      sql: "UPDATE bizdata_workflow SET closed = true WHERE tenant_id = $1 AND id = $2::uuid",
      params: [tenantId, workflowId],
    });
  }
  return expired.length;
}
