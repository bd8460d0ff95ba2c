/**
 * What the PostgreSQL driver can be told, with the defaults a host serves with (every wait
 * bounded: architecture, Faults). Apart from the driver so that configuration can name them
 * without loading the `postgres` package.
 */
export interface PostgresOptions {
  /**
   * pool size; in session mode the driver has three pools of this size (one-statement tenant
   * reads, tenant transactions, everything else), in transaction mode one, and at most this many
   * operations use a connection at a time
   */
  readonly max?: number;
  /** milliseconds to establish a connection (TCP, TLS, authentication) */
  readonly connectTimeout?: number;
  /** milliseconds an operation waits for a free connection */
  readonly poolTimeout?: number;
  /** PostgreSQL `statement_timeout` in milliseconds; 0 leaves the server's setting */
  readonly statementTimeout?: number;
  /** PostgreSQL `lock_timeout` in milliseconds; 0 leaves the server's setting */
  readonly lockTimeout?: number;
  /** PostgreSQL `idle_in_transaction_session_timeout` in milliseconds; 0 leaves the server's setting */
  readonly idleInTransactionTimeout?: number;
  /**
   * How a tenant's role, tenant and limits are held (pooler-mode.ts): `transaction` sets them in
   * every transaction and leaves nothing on a server session, as a transaction pooler such as
   * PgBouncer needs; `session` keeps them on the connections' sessions, for a direct connection
   * only (refused when a pooler is detected); `auto` is `transaction` behind a pooler (detected by
   * the cancel key it answers with) and `session` otherwise
   */
  readonly pooler?: "transaction" | "session" | "auto";
}

export const defaultPostgresOptions: Required<PostgresOptions> = {
  max: 10,
  connectTimeout: 5_000,
  poolTimeout: 5_000,
  statementTimeout: 30_000,
  lockTimeout: 10_000,
  idleInTransactionTimeout: 60_000,
  pooler: "auto",
};
