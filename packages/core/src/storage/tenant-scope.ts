/**
 * Every tenant's work runs in the application role with the current tenant set, so row-level
 * security holds even for a statement that forgot its tenant predicate. Both settings go in one
 * statement, the transaction's set-up, which a driver sends together with BEGIN and the first
 * statement: one round trip. On PostgreSQL the work runs instead on a session opened in the
 * application role that keeps its tenant (postgres-database.ts), where a one-statement read, or a
 * write whose one statement is its last, needs no transaction at all. The work's inserts wait and
 * go together (write-behind.ts) unless `deferInserts` is false. Its writes' change log rows name
 * the author `changes` gives.
 */
import type { ChangeSource } from "../changes/change-source.js";
import type { Database, Session, TransactionOptions } from "./database.js";
import { APP_ROLE, TENANT_SETTING } from "./tenant-policy.js";
import { type WriteBehind, writeBehind, writeThrough } from "./write-behind.js";

export interface TenantTransactionOptions extends TransactionOptions {
  /** let inserts through the store wait and go together (default true) */
  readonly deferInserts?: boolean;
  /** who makes the work's changes, for their change log rows (Session.changes) */
  readonly changes?: ChangeSource | undefined;
}

/** the tenant transaction's set-up: the application role and the tenant, for the transaction */
const SETUP = `SELECT set_config('role', '${APP_ROLE}', true), set_config('${TENANT_SETTING}', $1, true)`;

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Tenant ids are short identifiers; anything else is rejected before it reaches SQL. */
export const isTenantId = (id: string): boolean => TENANT_ID.test(id);

export function inTenant<T>(
  db: Database,
  tenantId: string,
  fn: (tx: Session, writes: WriteBehind) => Promise<T>,
  options?: TenantTransactionOptions,
): Promise<T> {
  if (!isTenantId(tenantId)) throw new Error(`"${tenantId}" is not a valid tenant id.`);
  // a read-only transaction inserts nothing: no waiting, no check before each statement, and
  // nothing to finish after the work (one async step less for every read)
  const changes = options?.changes;
  const authored = (tx: Session): Session => (changes === undefined ? tx : { ...tx, changes });
  const work =
    options?.deferInserts === false || options?.readOnly
      ? (tx: Session) => {
          const writes = writeThrough(authored(tx));
          return fn(writes.session, writes);
        }
      : async (tx: Session) => {
          const writes = writeBehind(authored(tx));
          const result = await fn(writes.session, writes);
          await writes.finish();
          return result;
        };
  return db.transaction(work, {
    ...options,
    tenant: tenantId,
    setup: { sql: SETUP, params: [tenantId] },
  });
}
