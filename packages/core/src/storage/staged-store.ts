/**
 * Writing a workflow's staged state: after-images (the whole record as it will be) and
 * tombstones, upserted by (tenant, workflow, Guid), so restaging a record replaces its image.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnyEntity } from "../model/model.js";
import type { Session } from "./database.js";
import { persistedColumns, TENANT_COLUMN } from "./naming.js";
import { unnestRecords } from "./record-store.js";
import { DELETED_COLUMN, stagedTableName, WORKFLOW_COLUMN } from "./staged-tables.js";
import type { StagedView } from "./staged-view.js";

const id = (name: string) => sql.identifier(name);

/** Stages the after-images of records (every column, the record as a whole) in one statement. */
export async function stageRecords(
  session: Session & { view: StagedView },
  def: AnyEntity,
  tenantId: string,
  records: readonly Record<string, unknown>[],
): Promise<void> {
  if (records.length === 0) return;
  const columns = persistedColumns(def);
  const names = sql.join(
    [id(TENANT_COLUMN), id(WORKFLOW_COLUMN), id(DELETED_COLUMN), ...columns.map((c) => id(c.column))],
    sql`, `,
  );
  const unnest = unnestRecords(def, records);
  const updates: SQL[] = [
    ...columns.filter((c) => c.column !== "guid").map((c) => sql`${id(c.column)} = EXCLUDED.${id(c.column)}`),
    sql`${id(DELETED_COLUMN)} = false`,
  ];
  await session.query(
    sql`INSERT INTO ${id(stagedTableName(def))} (${names}) SELECT ${tenantId}, ${session.view.workflowId}::uuid, false, * FROM unnest(${unnest})
        ON CONFLICT (${id(TENANT_COLUMN)}, ${id(WORKFLOW_COLUMN)}, guid) DO UPDATE SET ${sql.join(updates, sql`, `)}`,
  );
}

/** Stages the deletion of records: tombstones that hide the base rows until commit deletes them. */
export async function stageTombstones(
  session: Session & { view: StagedView },
  def: AnyEntity,
  tenantId: string,
  guids: readonly string[],
): Promise<void> {
  if (guids.length === 0) return;
  await session.query(
    sql`INSERT INTO ${id(stagedTableName(def))} (${id(TENANT_COLUMN)}, ${id(WORKFLOW_COLUMN)}, ${id(DELETED_COLUMN)}, guid)
        SELECT ${tenantId}, ${session.view.workflowId}::uuid, true, g FROM unnest(${sql.param([...guids])}::uuid[]) AS g
        ON CONFLICT (${id(TENANT_COLUMN)}, ${id(WORKFLOW_COLUMN)}, guid) DO UPDATE SET ${id(DELETED_COLUMN)} = true`,
  );
}
