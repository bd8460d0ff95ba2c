/**
 * Webhook subscriptions and their deliveries (docs/guide/change-tracking.md, "Registering a
 * webhook"). A subscription keeps where in the change log (core's change-table.ts) its events
 * have been taken up to, its cursor; each change it takes becomes one delivery row, the event as
 * it is sent (its body, built once, so every attempt sends the same bytes under the same id),
 * `pending` until a receiver accepts it (then the row goes) or `dead` once its attempts are used
 * up. The cursor and the rows it passed over move in one transaction, so a change becomes exactly
 * one delivery however many hosts take part; the write path does nothing for them.
 *
 * Which host works on a subscription is its lease (`lease_holder` until `lease_until`): a host
 * claims subscriptions that are due and leased by none with `FOR UPDATE SKIP LOCKED`, across
 * tenants, so no two hosts ever send a subscription's events at once (webhook-queue.ts). That
 * claim is the one statement outside a tenant: the owner (the user `migrate` runs as) may read
 * and lease any subscription, as it may prune the change log. All else runs in the tenant, under
 * row-level security.
 */
import { APP_ROLE, tenantColumn, tenantPolicy, xid8 } from "@bizdata/core";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  pgPolicy,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/** a delivery waiting to be sent, or given up on */
export type DeliveryState = "pending" | "dead";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "string" });

export const webhookTable = pgTable(
  "bizdata_webhook",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    id: uuid("id").notNull(),
    /** where events are POSTed (https, unless WEBHOOK_ALLOW_INSECURE) */
    url: text("url").notNull(),
    /** the entity sets whose changes it takes */
    entities: text("entities").array().notNull(),
    /** the kinds of change it takes: create, update, delete */
    kinds: text("kinds").array().notNull(),
    /** Standard Webhooks' `whsec_<base64>`: every event is signed with it */
    secret: text("secret").notNull(),
    /** a disabled subscription keeps its cursor and sends nothing until enabled again */
    enabled: boolean("enabled").notNull().default(true),
    createdAt: at("created_at").notNull().defaultNow(),
    createdBy: text("created_by"),
    /** the cursor: changes of transactions from `cursor_xid` on, after sequence `cursor_seq` in it, are still to be taken */
    cursorXid: xid8("cursor_xid").notNull(),
    cursorSeq: bigint("cursor_seq", { mode: "number" }).notNull().default(0),
    /** when a host next looks for its work */
    dueAt: at("due_at").notNull().defaultNow(),
    /** the host working on it, until when */
    leaseHolder: uuid("lease_holder"),
    leaseUntil: at("lease_until"),
  },
  (t) => [
    primaryKey({ name: "bizdata_webhook_pkey", columns: [t.tenantId, t.id] }),
    // the claim's scan, across tenants: the enabled subscriptions in the order they fall due
    index("bizdata_webhook_due_ix").on(t.dueAt).where(sql`enabled`),
    pgPolicy("bizdata_webhook_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
    pgPolicy("bizdata_webhook_claim", { for: "all", to: "current_user", using: sql`true`, withCheck: sql`true` }),
  ],
).enableRLS();

export const webhookDeliveryTable = pgTable(
  "bizdata_webhook_delivery",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    webhook: uuid("webhook").notNull(),
    /** the change's place in the log: a subscription's events go out in this order */
    xid: xid8("xid").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    /** the event's id, its `webhook-id`: the same for every attempt */
    id: uuid("id").notNull(),
    /** `Product.created`, … */
    type: text("type").notNull(),
    /** the JSON sent, exactly */
    body: text("body").notNull(),
    state: text("state").$type<DeliveryState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** a pending delivery's next attempt */
    dueAt: at("due_at").notNull().defaultNow(),
    lastAttemptAt: at("last_attempt_at"),
    /** the receiver's status code at the last attempt, if it answered */
    lastStatus: integer("last_status"),
    /** why the last attempt failed */
    lastError: text("last_error"),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (t) => [
    // one delivery per change and subscription, in the order they are sent and listed
    primaryKey({ name: "bizdata_webhook_delivery_pkey", columns: [t.tenantId, t.webhook, t.xid, t.seq] }),
    uniqueIndex("bizdata_webhook_delivery_id_ix").on(t.tenantId, t.id),
    // a subscription's next event: its first pending one
    index("bizdata_webhook_delivery_pending_ix").on(t.tenantId, t.webhook, t.xid, t.seq).where(sql`state = 'pending'`),
    foreignKey({
      name: "bizdata_webhook_delivery_webhook_fk",
      columns: [t.tenantId, t.webhook],
      foreignColumns: [webhookTable.tenantId, webhookTable.id],
    }).onDelete("cascade"),
    pgPolicy("bizdata_webhook_delivery_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

/** the tables webhooks need, for `migrate` */
export const webhookTables = [webhookTable, webhookDeliveryTable] as const;
