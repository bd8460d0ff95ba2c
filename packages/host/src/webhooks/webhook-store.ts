/**
 * A tenant's webhook subscriptions as its administration sees them (webhook-routes.ts): register,
 * list, read, change, remove, and send dead-lettered events again. Each runs in the tenant, under
 * row-level security. What the deliverer does with them is in webhook-queue.ts.
 */
import {
  type ChangeKind,
  type Database,
  inTenant,
  ServiceError,
  type Session,
  tableQueries,
  tenantTable,
} from "@bizdata/core";
import { and, asc, desc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { newWebhookSecret } from "./webhook-signature.js";
import { type DeliveryState, webhookDeliveryTable as d, webhookTable as w } from "./webhook-tables.js";

/** a subscription as the API shows it (never its secret, but once, as it is made) */
export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly entities: readonly string[];
  readonly kinds: readonly ChangeKind[];
  readonly enabled: boolean;
  readonly createdAt: string;
  readonly createdBy: string | null;
}

/** what a subscription is made of, checked (webhook-registration.ts) */
export interface WebhookFields {
  readonly url: string;
  readonly entities: readonly string[];
  readonly kinds: readonly ChangeKind[];
  readonly enabled: boolean;
}

/** a delivery as the API shows it; `event` is the JSON text sent */
export interface Delivery {
  readonly id: string;
  readonly type: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastAttemptAt: string | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly event: string;
}

/** a timestamp as ISO 8601 text with its offset, as the API answers them */
const iso = (column: PgColumn) => sql<string>`to_json(${column}) #>> '{}'`;

const webhookColumns = {
  id: w.id,
  url: w.url,
  entities: w.entities,
  kinds: w.kinds,
  enabled: w.enabled,
  createdAt: iso(w.createdAt).as("created_at"),
  createdBy: w.createdBy,
};

const deliveryColumns = {
  id: d.id,
  type: d.type,
  state: d.state,
  attempts: d.attempts,
  nextAttemptAt: sql<string | null>`CASE WHEN ${d.state} = 'pending' THEN to_json(${d.dueAt}) #>> '{}' END`.as("next"),
  lastAttemptAt: iso(d.lastAttemptAt).as("last_attempt_at"),
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: iso(d.createdAt).as("created_at"),
  event: d.body,
};

const asWebhook = (row: Omit<Webhook, "kinds"> & { kinds: string[] }): Webhook => row as Webhook;

const one = (tenantId: string, id: string) => and(eq(w.tenantId, tenantId), eq(w.id, id));

/**
 * Registers a subscription that takes the changes from now on (the log's watermark, core's
 * change-reads.ts), and answers it with its secret. A tenant has at most `limit`: its row is
 * locked while they are counted, so registrations made at once cannot pass the limit together.
 */
export function createWebhook(
  db: Database,
  tenantId: string,
  fields: WebhookFields,
  createdBy: string,
  limit: number,
): Promise<Webhook & { readonly secret: string }> {
  return inTenant(db, tenantId, async (tx) => {
    const q = tableQueries(tx);
    await q.select({ id: tenantTable.id }).from(tenantTable).where(eq(tenantTable.id, tenantId)).for("no key update");
    const [count] = await q
      .select({ n: sql<number>`count(*)::int`.as("n") })
      .from(w)
      .where(eq(w.tenantId, tenantId));
    if (Number(count?.n ?? 0) >= limit)
      throw new ServiceError(
        "WebhookLimitReached",
        `The tenant has ${limit} webhook subscriptions, as many as the host allows: delete one first.`,
      );
    const secret = newWebhookSecret();
    const [row] = await q
      .insert(w)
      .values({
        tenantId,
        id: crypto.randomUUID(),
        ...fields,
        entities: [...fields.entities],
        kinds: [...fields.kinds],
        secret,
        createdBy,
        cursorXid: sql`pg_snapshot_xmin(pg_current_snapshot())` as unknown as string,
      })
      .returning(webhookColumns);
    return { ...asWebhook(row!), secret };
  });
}

export function listWebhooks(db: Database, tenantId: string): Promise<Webhook[]> {
  return inTenant(
    db,
    tenantId,
    async (tx) =>
      (
        await tableQueries(tx)
          .select(webhookColumns)
          .from(w)
          .where(eq(w.tenantId, tenantId))
          .orderBy(asc(w.createdAt), asc(w.id))
      ).map(asWebhook),
    { readOnly: true },
  );
}

export function findWebhook(db: Database, tenantId: string, id: string): Promise<Webhook | undefined> {
  return inTenant(db, tenantId, (tx) => selectWebhook(tx, tenantId, id), { readOnly: true });
}

async function selectWebhook(tx: Session, tenantId: string, id: string): Promise<Webhook | undefined> {
  const [row] = await tableQueries(tx).select(webhookColumns).from(w).where(one(tenantId, id));
  return row && asWebhook(row);
}

/**
 * Changes a subscription (`check` first sees it as it is, to refuse what the caller may not do).
 * One enabled again falls due at once; its cursor stays, so it sends what changed meanwhile.
 */
export function updateWebhook(
  db: Database,
  tenantId: string,
  id: string,
  check: (current: Webhook) => Partial<WebhookFields>,
): Promise<Webhook | undefined> {
  return inTenant(db, tenantId, async (tx) => {
    const q = tableQueries(tx);
    const [current] = await q.select(webhookColumns).from(w).where(one(tenantId, id)).for("no key update");
    if (current === undefined) return undefined;
    const { entities, kinds, ...change } = check(asWebhook(current));
    if (entities === undefined && kinds === undefined && Object.keys(change).length === 0) return asWebhook(current);
    const [row] = await q
      .update(w)
      .set({
        ...change,
        ...(entities && { entities: [...entities] }),
        ...(kinds && { kinds: [...kinds] }),
        ...(change.enabled === true && !current.enabled && { dueAt: sql`now()` as unknown as string }),
      })
      .where(one(tenantId, id))
      .returning(webhookColumns);
    return row && asWebhook(row);
  });
}

/** removes a subscription and its deliveries (they cascade); whether there was one */
export function deleteWebhook(db: Database, tenantId: string, id: string, check: (current: Webhook) => void) {
  return inTenant(db, tenantId, async (tx) => {
    const current = await selectWebhook(tx, tenantId, id);
    if (current === undefined) return false;
    check(current);
    // another request may have removed it meanwhile
    const gone = await tableQueries(tx).delete(w).where(one(tenantId, id)).returning({ id: w.id });
    return gone.length > 0;
  });
}

/** a subscription's deliveries waiting or dead-lettered, newest first, at most `limit` */
export function listDeliveries(
  db: Database,
  tenantId: string,
  webhook: string,
  options: { readonly state?: DeliveryState | undefined; readonly limit: number },
): Promise<Delivery[]> {
  const where = [eq(d.tenantId, tenantId), eq(d.webhook, webhook), options.state && eq(d.state, options.state)];
  return inTenant(
    db,
    tenantId,
    (tx) =>
      tableQueries(tx)
        .select(deliveryColumns)
        .from(d)
        .where(and(...where))
        .orderBy(desc(d.xid), desc(d.seq))
        .limit(options.limit) as Promise<Delivery[]>,
    { readOnly: true },
  );
}

/** the subscription falls due now: a host takes up what was just queued again */
const wake = (tx: Session, tenantId: string, webhook: string) =>
  tableQueries(tx)
    .update(w)
    .set({ dueAt: sql`now()` as unknown as string })
    .where(and(one(tenantId, webhook), lte(sql`now()`, w.dueAt)));

/**
 * Queues dead-lettered deliveries again, each with its attempts from nothing and the same id and
 * body: those `which` selects of the subscription (one, or all its dead ones). Answers the ones
 * queued; a delivery that is still pending is left as it is and not among them.
 */
export function redeliver(db: Database, tenantId: string, webhook: string, which?: string): Promise<Delivery[]> {
  const where: (SQL | undefined)[] = [
    eq(d.tenantId, tenantId),
    eq(d.webhook, webhook),
    eq(d.state, "dead"),
    which === undefined ? undefined : eq(d.id, which),
  ];
  return inTenant(db, tenantId, async (tx) => {
    const rows = (await tableQueries(tx)
      .update(d)
      .set({ state: "pending", attempts: 0, dueAt: sql`now()` as unknown as string })
      .where(and(...where))
      .returning(deliveryColumns)) as Delivery[];
    if (rows.length > 0) await wake(tx, tenantId, webhook);
    return rows;
  });
}

/** one delivery of the subscription, whatever its state */
export function findDelivery(
  db: Database,
  tenantId: string,
  webhook: string,
  id: string,
): Promise<Delivery | undefined> {
  return inTenant(
    db,
    tenantId,
    async (tx) =>
      (
        (await tableQueries(tx)
          .select(deliveryColumns)
          .from(d)
          .where(and(eq(d.tenantId, tenantId), eq(d.webhook, webhook), eq(d.id, id)))) as Delivery[]
      )[0],
    { readOnly: true },
  );
}
