/**
 * The change log, the outbox every committed change leaves through (architecture: "changes leave
 * through one outbox"): one row per record a write created, updated or deleted, appended by the
 * very statement that writes the record (logged-writes.ts), so a change and its row commit or roll
 * back together. Delta links, the history of a record and whatever else follows changes read it.
 *
 * Order across concurrent transactions: every row carries the id of the transaction that wrote it
 * (`xid`, `pg_current_xact_id()`) and a sequence number for the order within it. A reader reads only
 * rows of transactions older than the oldest one still running when it reads (`pg_snapshot_xmin`,
 * change-reads.ts): each of those has committed or rolled back, so a row appears in a later range
 * than a reader has seen only if its transaction was still running then. A sequence alone would
 * not do: a transaction that took number 5 may commit after one that took 6 was read.
 *
 * Like every tenant table it leads with the tenant and row-level security holds each tenant to its
 * own rows. The owner (the user `migrate` runs as) may delete any row: the retention prune runs
 * outside every tenant (prune-changes.ts), and an owner could lift the table's security anyway.
 */
import { sql } from "drizzle-orm";
import {
  bigserial,
  customType,
  index,
  json,
  pgPolicy,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { tenantColumn } from "../storage/tenant-column.js";
import { APP_ROLE, tenantPolicy } from "../storage/tenant-policy.js";

export const CHANGE_TABLE = "bizdata_change";

/** what a write did to a record */
export type ChangeKind = "create" | "update" | "delete";

/** a transaction id that never wraps around (PostgreSQL 13+), read and written as its decimal text */
export const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

export const changeTable = pgTable(
  CHANGE_TABLE,
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    /** the transaction that made the change */
    xid: xid8("xid").notNull().default(sql`pg_current_xact_id()`),
    /** the change's place among those of its transaction (and of every other: one sequence) */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    /** when the statement that made it ran */
    at: timestamp("at", { withTimezone: true, mode: "string" }).notNull().default(sql`statement_timestamp()`),
    entity: text("entity").notNull(),
    key: uuid("key").notNull(),
    /** the owner of an owned collection's item (its inverse reference), so that its changes count for the owner */
    owner: uuid("owner"),
    kind: text("kind").$type<ChangeKind>().notNull(),
    /** an update's changed properties (top-level names); none for a create or a delete */
    properties: text("properties").array(),
    /** the new values of those properties (all of a created record's), where the entity keeps them (`changeLog: "values"`) */
    data: json("data"),
    /** the user or client that made the change */
    actor: text("actor"),
    /** the request that made it (X-Request-Id) */
    requestId: text("request_id"),
  },
  (t) => [
    primaryKey({ name: `${CHANGE_TABLE}_pkey`, columns: [t.tenantId, t.xid, t.seq] }),
    // a delta read: one entity set's changes in a range of transactions, in their order
    index(`${CHANGE_TABLE}_entity_ix`).on(t.tenantId, t.entity, t.xid, t.seq),
    // a record's history
    index(`${CHANGE_TABLE}_key_ix`).on(t.tenantId, t.key),
    // an owner's history with its items': only items have an owner
    index(`${CHANGE_TABLE}_owner_ix`).on(t.tenantId, t.owner).where(sql`owner IS NOT NULL`),
    // the prune's range: rows arrive in time order, which a BRIN index keeps for next to nothing
    index(`${CHANGE_TABLE}_at_ix`).using("brin", t.at),
    pgPolicy(`${CHANGE_TABLE}_tenant`, { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
    pgPolicy(`${CHANGE_TABLE}_prune`, { for: "delete", to: "current_user", using: sql`true` }),
  ],
).enableRLS();
