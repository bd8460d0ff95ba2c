/**
 * A workflow's staged state as a store: writes become after-images (the whole record as it will
 * be) and tombstones, upserted by (tenant, workflow, Guid), so restaging a record replaces its
 * image; reads see the overlay of both on the base tables. Nothing reaches the base tables until
 * the commit applies the staged rows; closing or expiring the workflow discards them.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnyEntity } from "../model/model.js";
import type { Session } from "./database.js";
import { columnOf, persistedColumns, TENANT_COLUMN, tableName, VERSION_COLUMN } from "./naming.js";
import { type RecordStore, type StoredRecord, withStore } from "./record-port.js";
import { collectionsOf } from "./record-rows.js";
import { recordReads, unnestRecords } from "./record-store.js";
import { stagedChanged } from "./staged-changes.js";
import {
  BASE_IMAGE_COLUMN,
  BASE_VERSION_COLUMN,
  DELETED_COLUMN,
  stagedTableName,
  WORKFLOW_COLUMN,
} from "./staged-tables.js";

const id = (name: string) => sql.identifier(name);

/**
 * The base row each staged row was made against, joined on the Guid `guid`: its version and its
 * image, kept from the first staging of a record so that the commit can tell what changed in
 * the main data since. A virtual entity has no base rows.
 */
function baseOf(def: AnyEntity, tenantId: string, guid: SQL): { join: SQL; columns: SQL } {
  if (def.storage !== undefined) return { join: sql``, columns: sql`NULL::bigint, NULL::json` };
  return {
    join: sql` LEFT JOIN ${id(tableName(def))} AS b ON b.${id(TENANT_COLUMN)} = ${tenantId} AND b.guid = ${guid}`,
    columns: sql`b.${id(VERSION_COLUMN)}, CASE WHEN b.guid IS NULL THEN NULL ELSE row_to_json(b) END`,
  };
}

/** staging a record again counts: the workflow's ETag of it changes (staged-view.ts) */
const restaged = (def: AnyEntity) => sql`${id(VERSION_COLUMN)} = ${id(stagedTableName(def))}.${id(VERSION_COLUMN)} + 1`;

const stagedColumns = (...columns: string[]) =>
  sql.join(
    [TENANT_COLUMN, WORKFLOW_COLUMN, DELETED_COLUMN, ...columns, BASE_VERSION_COLUMN, BASE_IMAGE_COLUMN].map(id),
    sql`, `,
  );

/** Stages the after-images of records (every column, the record as a whole) in one statement. */
async function stageRecords(
  session: Session,
  workflowId: string,
  def: AnyEntity,
  tenantId: string,
  records: readonly StoredRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const columns = persistedColumns(def).map((c) => c.column);
  const updates: SQL[] = [
    ...columns.filter((c) => c !== "guid").map((c) => sql`${id(c)} = EXCLUDED.${id(c)}`),
    sql`${id(DELETED_COLUMN)} = false`,
    restaged(def),
  ];
  const base = baseOf(def, tenantId, sql`u.guid`);
  await session.query(
    sql`INSERT INTO ${id(stagedTableName(def))} (${stagedColumns(...columns)})
        SELECT ${tenantId}, ${workflowId}::uuid, false, u.*, ${base.columns}
        FROM unnest(${unnestRecords(def, records)}) AS u(${sql.join(columns.map(id), sql`, `)})${base.join}
        ON CONFLICT (${id(TENANT_COLUMN)}, ${id(WORKFLOW_COLUMN)}, guid) DO UPDATE SET ${sql.join(updates, sql`, `)}`,
  );
}

/**
 * Stages the deletion of records: tombstones that hide the base rows (and any staged image) until
 * commit deletes them. A tombstone replaces a staged after-image, so a change then a delete
 * commits as a delete.
 */
async function stageTombstones(
  session: Session,
  workflowId: string,
  def: AnyEntity,
  tenantId: string,
  guids: readonly string[],
): Promise<void> {
  if (guids.length === 0) return;
  const base = baseOf(def, tenantId, sql`g`);
  await session.query(
    sql`INSERT INTO ${id(stagedTableName(def))} (${stagedColumns("guid")})
        SELECT ${tenantId}, ${workflowId}::uuid, true, g, ${base.columns} FROM unnest(${sql.param([...guids])}::uuid[]) AS g${base.join}
        ON CONFLICT (${id(TENANT_COLUMN)}, ${id(WORKFLOW_COLUMN)}, guid) DO UPDATE SET ${id(DELETED_COLUMN)} = true, ${restaged(def)}`,
  );
}

/**
 * Re-bases the staged change of a record on the main record as it is now, when that moved on
 * since the change was staged: what the workflow changed stays, every other column takes the
 * main value, and the main version and image become the base, as if the change had been staged
 * just now. What a client asks for by sending the ETag the workflow shows now (which names the
 * main version) after a commit conflict: it has seen the main data, and its change wins.
 */
async function rebaseStaged(session: Session, workflowId: string, def: AnyEntity, tenantId: string, guid: string) {
  if (def.storage !== undefined) return;
  const merged = persistedColumns(def)
    .filter((c) => c.column !== "guid")
    .map(
      (c) =>
        sql`${id(c.column)} = CASE WHEN s.${id(DELETED_COLUMN)} OR ${stagedChanged(c.column)} THEN s.${id(c.column)} ELSE b.${id(c.column)} END`,
    );
  await session.query(
    sql`UPDATE ${id(stagedTableName(def))} AS s
        SET ${sql.join(merged, sql`, `)}, ${id(BASE_VERSION_COLUMN)} = b.${id(VERSION_COLUMN)}, ${id(BASE_IMAGE_COLUMN)} = row_to_json(b)
        FROM ${id(tableName(def))} AS b
        WHERE s.${id(TENANT_COLUMN)} = ${tenantId} AND s.${id(WORKFLOW_COLUMN)} = ${workflowId}::uuid AND s.guid = ${guid}::uuid
          AND b.${id(TENANT_COLUMN)} = s.${id(TENANT_COLUMN)} AND b.guid = s.guid
          AND s.${id(BASE_VERSION_COLUMN)} IS NOT NULL AND s.${id(BASE_VERSION_COLUMN)} <> b.${id(VERSION_COLUMN)}`,
  );
}

/** the store of one workflow's staged state */
export function stagedStore(workflowId: string): RecordStore {
  const reads = recordReads({ workflowId });
  return {
    view: { workflowId },
    defersSave: true,
    changeLog: false,
    ...reads,
    insert: (session, def, tenantId, records) => stageRecords(session, workflowId, def, tenantId, records),
    update: (session, def, tenantId, record) => stageRecords(session, workflowId, def, tenantId, [record]),
    rebase: (session, def, tenantId, guid) => rebaseStaged(session, workflowId, def, tenantId, guid),
    remove: async (session, def, tenantId, guids) => {
      const existing = (await reads.load(session, def, tenantId, guids)).map((r) => r.Guid as string);
      // the base rows' items would go by cascade at commit; until then the overlay must hide them too
      let level: { def: AnyEntity; guids: string[] }[] = [{ def, guids: existing }];
      while (level.length > 0) {
        const next: typeof level = [];
        for (const owners of level) {
          if (owners.guids.length === 0) continue;
          await stageTombstones(session, workflowId, owners.def, tenantId, owners.guids);
          for (const { field } of collectionsOf(owners.def)) {
            const inverse = columnOf(field.target, [field.inverse])!.column;
            const items = await reads.loadWhere(session, field.target, tenantId, inverse, owners.guids);
            next.push({ def: field.target, guids: items.map((i) => i.Guid as string) });
          }
        }
        level = next;
      }
      return existing;
    },
  };
}

/** `session` seeing and writing the staged state of workflow `workflowId` */
export const stagedSession = (session: Session, workflowId: string): Session =>
  withStore(session, stagedStore(workflowId));
