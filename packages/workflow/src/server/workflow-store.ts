/**
 * Workflows as rows (architecture: staged state in PostgreSQL): who owns one, its staging key,
 * the next index and when it expires. Each step takes the row with `FOR UPDATE`, checks the
 * index, does its work and advances the index in one transaction, which makes steps exactly-once
 * across any number of host instances (spec 7).
 */
import { randomUUID } from "node:crypto";
import type { Session } from "@bizdata/core";

export interface WorkflowRow {
  readonly id: string;
  readonly nextIndex: number;
}

const OPEN = "NOT closed AND expires_at > now()";

export async function createWorkflow(
  session: Session,
  tenantId: string,
  owner: string,
  stagingKey: string | null,
  ttlSeconds: number,
): Promise<WorkflowRow> {
  const id = randomUUID();
  await session.query({
    sql: `INSERT INTO bizdata_workflow (tenant_id, id, owner, staging_key, next_index, expires_at)
          VALUES ($1, $2, $3, $4, 1, now() + make_interval(secs => $5))`,
    params: [tenantId, id, owner, stagingKey, ttlSeconds],
  });
  return { id, nextIndex: 1 };
}

/** the caller's open workflow with this id; foreign, closed and expired ones are not found */
export async function findWorkflow(
  session: Session,
  tenantId: string,
  owner: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<WorkflowRow | undefined> {
  const [row] = await session.query<{ id: string; next_index: number }>({
    sql: `SELECT id::text AS id, next_index FROM bizdata_workflow
          WHERE tenant_id = $1 AND id = $2::uuid AND owner = $3 AND ${OPEN}${options.lock ? " FOR UPDATE" : ""}`,
    params: [tenantId, id, owner],
  });
  return row === undefined ? undefined : { id: row.id, nextIndex: Number(row.next_index) };
}

/** the caller's most recent open workflow with this staging key (spec 4.6 rule 1) */
export async function findActiveWorkflow(
  session: Session,
  tenantId: string,
  owner: string,
  stagingKey: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await session.query<{ id: string; next_index: number }>({
    sql: `SELECT id::text AS id, next_index FROM bizdata_workflow
          WHERE tenant_id = $1 AND owner = $2 AND staging_key = $3 AND ${OPEN} ORDER BY expires_at DESC LIMIT 1`,
    params: [tenantId, owner, stagingKey],
  });
  return row === undefined ? undefined : { id: row.id, nextIndex: Number(row.next_index) };
}

/** a step succeeded: the index moves on and the time-to-live starts again */
export async function advanceWorkflow(
  session: Session,
  tenantId: string,
  id: string,
  ttlSeconds: number,
): Promise<number> {
  const [row] = await session.query<{ next_index: number }>({
    sql: `UPDATE bizdata_workflow SET next_index = next_index + 1, expires_at = now() + make_interval(secs => $3)
          WHERE tenant_id = $1 AND id = $2::uuid RETURNING next_index`,
    params: [tenantId, id, ttlSeconds],
  });
  return Number(row!.next_index);
}

/** marks the workflow closed; its staged state is discarded by the caller in the same transaction */
export async function closeWorkflow(session: Session, tenantId: string, id: string): Promise<void> {
  await session.query({
    sql: "UPDATE bizdata_workflow SET closed = true WHERE tenant_id = $1 AND id = $2::uuid",
    params: [tenantId, id],
  });
}
