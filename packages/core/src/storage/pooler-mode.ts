/**
 * The PostgreSQL driver's two ways of holding a tenant's state (postgres-database.ts). In session
 * mode a connection's server session keeps it between transactions: the role and the read-only
 * mode as startup parameters, the tenant at session level, prepared statements by name. Behind a
 * transaction pooler (PgBouncer's `pool_mode = transaction`) a server session serves whichever
 * client's transaction comes next, so in transaction mode every transaction sets its role, tenant
 * and limits inside itself and nothing outlives it: no startup parameters beyond those every
 * pooler passes, no session-level setting, statements unnamed.
 */
import type postgres from "@bizdata/postgres";
import { RAISE_MALLOC_THRESHOLDS } from "./backend-heap.js";
import type { Statement } from "./database.js";
import { toQuery } from "./database.js";
import type { PostgresOptions } from "./postgres-options.js";
import { APP_ROLE, TENANT_SETTING } from "./tenant-policy.js";

export type PoolerMode = "transaction" | "session";

type Connection = postgres.Sql<any> | postgres.TransactionSql<any> | postgres.ReservedSql<any>;

/** a bound value as text, as postgres.js writes it for the type PostgreSQL would have described */
const asParameter = (value: unknown): unknown =>
  value === null || value === undefined
    ? null
    : typeof value === "boolean"
      ? value
        ? "t"
        : "f"
      : value instanceof Uint8Array
        ? `\\x${Buffer.from(value).toString("hex")}`
        : typeof value === "object" && !(value instanceof Date)
          ? JSON.stringify(value)
          : String(value);

/**
 * A statement sent at once as an unnamed one: nothing of it stays on the server session after
 * its transaction. postgres.js sends an unnamed statement with parameters in two round trips
 * (Parse and Describe, then Bind once PostgreSQL told the parameters' types), and queues what
 * follows behind the second, which would cost a one-statement read three round trips where it
 * takes one. Handed its parameters already as text, postgres.js writes Parse, Describe, Bind and
 * Execute together and PostgreSQL infers each parameter's type from the statement as it would
 * for the Describe. A driver that ignored the preset parameters would send none, and PostgreSQL
 * refuses such a Bind (`bind message supplies 0 parameters`): it cannot pass unnoticed.
 */
export const sendUnnamed = <R>(sql: Connection, statement: Statement): Promise<R[]> => {
  const q = toQuery(statement);
  if (q.params.length === 0) return sql.unsafe(q.sql).execute() as unknown as Promise<R[]>;
  // `simple` is postgres.js's, untyped: without parameters it would send the simple protocol's Query
  const query = sql.unsafe(q.sql, [], { prepare: false, simple: false } as postgres.UnsafeQueryOptions);
  (query as unknown as { parameters: unknown[] }).parameters = q.params.map(asParameter);
  return query.execute() as unknown as Promise<R[]>;
};

/** the limits a session-mode connection gets as startup parameters, as `set_config` calls local to a transaction */
const limitSettings = (o: Required<PostgresOptions>): string[] =>
  (
    [
      ["statement_timeout", o.statementTimeout],
      ["lock_timeout", o.lockTimeout],
      ["idle_in_transaction_session_timeout", o.idleInTransactionTimeout],
    ] as const
  )
    // 0 leaves the server's setting, as it does for a startup parameter
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `set_config('${name}', '${ms}', true)`);

/**
 * The set-ups of transaction mode, each one statement sent behind BEGIN: for the owner's work the
 * limits; for a tenant's the application role (whatever role the pooler connects as, so
 * row-level security applies), the tenant and the limits, and on a connection's first one the
 * statement that keeps its backend's heap (backend-heap.ts) too.
 */
export function transactionSetups(o: Required<PostgresOptions>) {
  const limits = limitSettings(o);
  const owner: Statement | undefined =
    limits.length > 0 ? { sql: `SELECT ${limits.join(", ")}`, params: [] } : undefined;
  const tenant = [`set_config('role', '${APP_ROLE}', true)`, `set_config('${TENANT_SETTING}', $1, true)`, ...limits];
  const plain = `SELECT ${tenant.join(", ")}`;
  const tuning = `SELECT ${[RAISE_MALLOC_THRESHOLDS.sql.replace(/^SELECT /, ""), ...tenant].join(", ")}`;
  return {
    owner,
    tenant: (id: string, tune: boolean): Statement => ({ sql: tune ? tuning : plain, params: [id] }),
  };
}

/**
 * Whether the connection reaches PostgreSQL through a pooler: a pooler answers the client's
 * startup with a cancel key of its own (PgBouncer, Odyssey, PgCat and Supavisor do, to route a
 * cancel request to whichever server runs the query), so the process id in it is not the one of
 * the backend that runs the statements. Undefined when the driver does not tell the key.
 */
export async function behindPooler(sql: postgres.Sql<any>): Promise<boolean | undefined> {
  const reserved = await sql.reserve();
  try {
    const [row] = await reserved.unsafe("SELECT pg_backend_pid() AS pid");
    const told = (reserved as { backend?: { pid: number | null } }).backend?.pid;
    return told === undefined || told === null ? undefined : told !== Number(row!.pid);
  } finally {
    reserved.release();
  }
}
