/**
 * Workflows as rows (architecture: staged state in PostgreSQL): who owns one, its staging key,
 * the next index and when it expires. Each step takes the row with `FOR UPDATE`, checks the
 * index, does its work and advances the index in one transaction, which makes steps exactly-once
 * across any number of host instances (spec 7).
 */
import { randomUUID } from "node:crypto";
import { type Session, tableQueries } from "@bizdata/core";
import { and, desc, eq, gt, not, sql } from "drizzle-orm";
import { workflowTable as w } from "./workflow-tables.js";

export interface WorkflowRow {
  readonly id: string;
  readonly nextIndex: number;
}

const open = () => and(not(w.closed), gt(w.expiresAt, sql`now()`));
const expiresIn = (ttlSeconds: number) => sql`now() + make_interval(secs => ${ttlSeconds})`;
const row = { id: w.id, nextIndex: w.nextIndex };

export async function createWorkflow(
  session: Session,
  tenantId: string,
  owner: string,
  stagingKey: string | null,
  ttlSeconds: number,
): Promise<WorkflowRow> {
  const id = randomUUID();
  await tableQueries(session)
    .insert(w)
    .values({ tenantId, id, owner, stagingKey, nextIndex: 1, expiresAt: expiresIn(ttlSeconds) });
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
  const query = tableQueries(session)
    .select(row)
    .from(w)
    .where(and(eq(w.tenantId, tenantId), eq(w.id, id), eq(w.owner, owner), open()));
  const [found] = await (options.lock ? query.for("update") : query);
  return found;
}

/** the caller's most recent open workflow with this staging key (spec 4.6 rule 1) */
export async function findActiveWorkflow(
  session: Session,
  tenantId: string,
  owner: string,
  stagingKey: string,
): Promise<WorkflowRow | undefined> {
  const [found] = await tableQueries(session)
    .select(row)
    .from(w)
    .where(and(eq(w.tenantId, tenantId), eq(w.owner, owner), eq(w.stagingKey, stagingKey), open()))
    .orderBy(desc(w.expiresAt))
    .limit(1);
  return found;
}

/** a step succeeded: the index moves on and the time-to-live starts again */
export async function advanceWorkflow(
  session: Session,
  tenantId: string,
  id: string,
  ttlSeconds: number,
): Promise<number> {
  const [advanced] = await tableQueries(session)
    .update(w)
    .set({ nextIndex: sql`${w.nextIndex} + 1`, expiresAt: expiresIn(ttlSeconds) })
    .where(and(eq(w.tenantId, tenantId), eq(w.id, id)))
    .returning({ nextIndex: w.nextIndex });
  return advanced!.nextIndex;
}

/** marks the workflow closed; its staged state is discarded by the caller in the same transaction */
export async function closeWorkflow(session: Session, tenantId: string, id: string): Promise<void> {
  await tableQueries(session)
    .update(w)
    .set({ closed: true })
    .where(and(eq(w.tenantId, tenantId), eq(w.id, id)));
}

/** this tenant's open workflows whose time-to-live ran out, locked (others sweeping skip them) */
export async function expiredWorkflows(session: Session, tenantId: string): Promise<string[]> {
  const rows = await tableQueries(session)
    .select({ id: w.id })
    .from(w)
    .where(and(eq(w.tenantId, tenantId), not(w.closed), sql`${w.expiresAt} <= now()`))
    .for("update", { skipLocked: true });
  return rows.map((r) => r.id);
}
