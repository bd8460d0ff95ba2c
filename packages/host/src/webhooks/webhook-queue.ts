/**
 * The deliverer's statements (webhook-deliverer.ts), in the order one subscription goes through
 * them:
 *
 * 1. `claimWebhooks`, outside every tenant: a host leases subscriptions that are due and that no
 *    host holds, `FOR UPDATE SKIP LOCKED`, so two hosts claiming at once take different ones.
 * 2. `nextEvent`, in the tenant: with nothing pending, the subscription's next changes in the log
 *    (core's readChanges, below the watermark, in log order) become deliveries and its cursor
 *    moves past them, in one transaction; then its first pending delivery is the one to send, if
 *    it is due. Only one is in flight at a time, so a subscription's events arrive in log order:
 *    one waiting to be tried again holds back those after it. Changes are taken up only once
 *    those taken before are sent, so a receiver that is down leaves its backlog in the log, not
 *    in copies.
 * 3. `recordAttempt`, in the tenant: a 2xx removes the delivery; a failure counts an attempt and
 *    sets the next after a backoff, or dead-letters it after the last. Only the lease holder
 *    records, so an attempt that outlived its lease and another host took over (the first host
 *    stalled) changes nothing.
 *
 * A lease lasts the attempt's timeout and a margin, renewed before each attempt: a host that dies
 * holding one leaves its subscription to another host once it runs out (the event may then be
 * sent again: at least once). Timestamps are the database's clock, never a host's.
 */
import { changeTable as c, type Database, inTenant, readChanges, type Session, tableQueries } from "@bizdata/core";
import { and, asc, eq, exists, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { webhookDeliveryTable as d, webhookTable as w } from "./webhook-tables.js";

/** changes taken from the log at once */
const TAKE = 100;

/** a subscription a host holds */
export interface Claim {
  readonly tenantId: string;
  readonly id: string;
}

const now = sql`now()`;
/** `ms` from now, as a timestamp for a column of the database's clock */
const later = (ms: number) => sql`now() + make_interval(secs => ${ms / 1000}::float8)` as unknown as string;

/** leases up to `n` due subscriptions of any tenant to `holder` for `leaseMs` */
export async function claimWebhooks(db: Database, holder: string, n: number, leaseMs: number): Promise<Claim[]> {
  const q = tableQueries(db);
  const due = q
    .select({ tenantId: w.tenantId, id: w.id })
    .from(w)
    .where(and(sql`${w.enabled}`, lte(w.dueAt, now), or(isNull(w.leaseUntil), lt(w.leaseUntil, now))))
    .orderBy(asc(w.dueAt))
    .limit(n)
    .for("update", { skipLocked: true })
    .as("due");
  return q
    .update(w)
    .set({ leaseHolder: holder, leaseUntil: later(leaseMs) })
    .from(due)
    .where(and(eq(w.tenantId, due.tenantId), eq(w.id, due.id)))
    .returning({ tenantId: w.tenantId, id: w.id });
}

/** an event to send now */
export interface DueEvent {
  readonly url: string;
  readonly secret: string;
  readonly id: string;
  readonly body: string;
  /** attempts made before this one */
  readonly attempts: number;
}

/**
 * What a held subscription does next: `send` an event (the lease renewed for it), look again at
 * once (`more`: a page of changes it takes none of, with more behind), or nothing for now
 * (`done`: the subscription released, due again when its first pending delivery is, or after
 * `pollMs` with none), or nothing at all (`lost`: another host holds it, or it is gone).
 */
export type NextStep =
  | { readonly kind: "send"; readonly event: DueEvent }
  | { readonly kind: "more" }
  | { readonly kind: "done" }
  | { readonly kind: "lost" };

/** the subscription, while `holder` holds it */
const held = (claim: Claim, holder: string) =>
  and(eq(w.tenantId, claim.tenantId), eq(w.id, claim.id), eq(w.leaseHolder, holder));

const ofClaim = (claim: Claim) => and(eq(d.tenantId, claim.tenantId), eq(d.webhook, claim.id));

async function firstPending(tx: Session, claim: Claim) {
  const [row] = await tableQueries(tx)
    .select({
      id: d.id,
      body: d.body,
      attempts: d.attempts,
      dueAt: d.dueAt,
      due: sql<boolean>`${d.dueAt} <= now()`.as("due"),
    })
    .from(d)
    .where(and(ofClaim(claim), eq(d.state, "pending")))
    .orderBy(asc(d.xid), asc(d.seq))
    .limit(1);
  return row;
}

/** the names of `columns`, for a column list */
const names = (...columns: PgColumn[]) =>
  sql.join(
    columns.map((column) => sql.identifier(column.name)),
    sql`, `,
  );

/**
 * An event's body, built by PostgreSQL from the log row (alias `c`) so that its values are the
 * logged JSON text, digits and all: `{"type":"Product.created","timestamp":…,"data":{entity, key,
 * kind, owner, properties, values, actor, requestId}}`.
 */
const eventType = sql`c.${sql.identifier(c.entity.name)} || '.' || c.${sql.identifier(c.kind.name)} || 'd'`;
const col = (column: PgColumn, as: string) => sql`c.${sql.identifier(column.name)} AS ${sql.identifier(as)}`;
const eventBody = sql`(SELECT row_to_json(e)::text FROM (SELECT ${eventType} AS type, ${col(c.at, "timestamp")},
  (SELECT row_to_json(x) FROM (SELECT ${sql.join(
    [
      col(c.entity, "entity"),
      col(c.key, "key"),
      col(c.kind, "kind"),
      col(c.owner, "owner"),
      col(c.properties, "properties"),
      col(c.data, "values"),
      col(c.actor, "actor"),
      col(c.requestId, "requestId"),
    ],
    sql`, `,
  )}) AS x) AS data) AS e)`;

interface Subscription {
  readonly entities: string[];
  readonly kinds: string[];
  readonly cursorXid: string;
  readonly cursorSeq: number;
}

/**
 * Turns the subscription's next changes of its entities and kinds into deliveries: how many, where
 * its cursor is now, and whether the log may have more right behind (a full page)
 */
async function takeChanges(tx: Session, claim: Claim, sub: Subscription) {
  const { to, rows } = await readChanges(tx, claim.tenantId, {
    entities: sub.entities,
    from: sub.cursorXid,
    after: { xid: sub.cursorXid, seq: sub.cursorSeq },
    limit: TAKE,
  });
  const taken = rows.filter((row) => sub.kinds.includes(row.kind));
  if (taken.length > 0) {
    const positions = sql`unnest(${sql.param(taken.map((r) => r.xid))}::text[], ${sql.param(taken.map((r) => r.seq))}::int8[]) AS p(xid, seq)`;
    await tx.query(
      sql`INSERT INTO ${d} (${names(d.tenantId, d.webhook, d.xid, d.seq, d.id, d.type, d.body)})
          SELECT c.${sql.identifier(c.tenantId.name)}, ${claim.id}::uuid, p.xid::xid8, p.seq, gen_random_uuid(), ${eventType}, ${eventBody}
          FROM ${positions} JOIN ${c} AS c ON c.${sql.identifier(c.tenantId.name)} = ${claim.tenantId}
            AND c.${sql.identifier(c.xid.name)} = p.xid::xid8 AND c.${sql.identifier(c.seq.name)} = p.seq
          ON CONFLICT DO NOTHING`,
    );
  }
  // a full page may have more behind it in the same range; a short one read all below the watermark
  const last = rows.at(-1);
  const full = rows.length === TAKE && last !== undefined;
  return {
    taken: taken.length,
    full,
    cursor: full ? { cursorXid: last.xid, cursorSeq: last.seq } : { cursorXid: to, cursorSeq: 0 },
  };
}

/** what `holder`, holding `claim`, does next (see NextStep); one transaction in the tenant */
export function nextEvent(
  db: Database,
  claim: Claim,
  holder: string,
  leaseMs: number,
  pollMs: number,
): Promise<NextStep> {
  return inTenant(db, claim.tenantId, async (tx): Promise<NextStep> => {
    const q = tableQueries(tx);
    const [sub] = await q
      .select({
        url: w.url,
        secret: w.secret,
        entities: w.entities,
        kinds: w.kinds,
        enabled: w.enabled,
        cursorXid: w.cursorXid,
        cursorSeq: w.cursorSeq,
      })
      .from(w)
      .where(held(claim, holder));
    if (sub === undefined) return { kind: "lost" };
    let pending = sub.enabled ? await firstPending(tx, claim) : undefined;
    let took: Awaited<ReturnType<typeof takeChanges>> | undefined;
    if (sub.enabled && pending === undefined) {
      took = await takeChanges(tx, claim, { ...sub, cursorSeq: Number(sub.cursorSeq) });
      if (took.taken > 0) pending = await firstPending(tx, claim);
    }
    const cursor = took?.cursor ?? {};
    if (pending?.due || (pending === undefined && took?.full)) {
      await q
        .update(w)
        .set({ ...cursor, leaseUntil: later(leaseMs) })
        .where(held(claim, holder));
      return pending === undefined
        ? { kind: "more" }
        : {
            kind: "send",
            event: { url: sub.url, secret: sub.secret, id: pending.id, body: pending.body, attempts: pending.attempts },
          };
    }
    // released: due when its first pending delivery is, or after a poll for new changes
    await q
      .update(w)
      .set({ ...cursor, leaseHolder: null, leaseUntil: null, dueAt: pending?.dueAt ?? later(pollMs) })
      .where(held(claim, holder));
    return { kind: "done" };
  });
}

/** how an attempt ended, as recorded */
export type Attempt =
  | { readonly ok: true; readonly status: number }
  | {
      readonly ok: false;
      readonly status?: number | undefined;
      readonly error: string;
      /** when to try again; undefined: never (dead-lettered) */
      readonly retryInMs: number | undefined;
    };

/**
 * Records an attempt at `eventId` by `holder`: delivered (the row goes), failed with a retry in
 * `retryInMs`, or failed for the last time (dead-lettered). Nothing when the holder no longer
 * holds the subscription.
 */
export async function recordAttempt(
  db: Database,
  claim: Claim,
  holder: string,
  eventId: string,
  attempt: Attempt,
): Promise<void> {
  await inTenant(db, claim.tenantId, (tx) => {
    const q = tableQueries(tx);
    const mine: SQL | undefined = and(
      ofClaim(claim),
      eq(d.id, eventId),
      eq(d.state, "pending"),
      exists(
        q
          .select({ one: sql`1`.as("one") })
          .from(w)
          .where(held(claim, holder)),
      ),
    );
    return attempt.ok
      ? q.delete(d).where(mine)
      : q
          .update(d)
          .set({
            attempts: sql`${d.attempts} + 1` as unknown as number,
            lastAttemptAt: now as unknown as string,
            lastStatus: attempt.status ?? null,
            lastError: attempt.error.slice(0, 500),
            state: attempt.retryInMs === undefined ? "dead" : "pending",
            dueAt: later(attempt.retryInMs ?? 0),
          })
          .where(mine);
  });
}

/** gives a held subscription up as it is (a host that stops), for another host to take at once */
export async function releaseWebhook(db: Database, claim: Claim, holder: string): Promise<void> {
  await inTenant(db, claim.tenantId, (tx) =>
    tableQueries(tx).update(w).set({ leaseHolder: null, leaseUntil: null }).where(held(claim, holder)),
  );
}
