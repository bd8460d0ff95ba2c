/**
 * postgres.js pools whose connections are opened as the host's tenant sessions are once set: in
 * the application role, holding the tenant, read-only for reads (core's postgres-database.ts). The
 * isolated floor (floor-server.ts) and bench:layers' postgres.js layer (layers.ts) send on them
 * what the host sends on its own.
 */
import { APP_ROLE, RAISE_MALLOC_THRESHOLDS } from "@bizdata/core";
import postgres from "@bizdata/postgres";

export function tenantSessions(url: string, options: postgres.Options<{}>, tenant: string) {
  const pool = (readOnly: boolean) =>
    postgres(url, {
      ...options,
      connection: {
        ...options.connection,
        role: APP_ROLE,
        // the floor plans every read for its values (floor-server.ts) and leaves a write's cached
        // plans (those of its foreign-key checks) to PostgreSQL
        ...(readOnly ? { default_transaction_read_only: true } : { plan_cache_mode: "auto" }),
        "app.tenant_id": tenant,
      },
    });
  return { reads: pool(true), writes: pool(false) };
}

/**
 * Opens all `size` connections of a pool and runs on each the statement the host's sessions start
 * with (core's RAISE_MALLOC_THRESHOLDS), so that their backends keep their heap as the host's do:
 * a backend that gives it back after each statement costs PostgreSQL up to twice the CPU, and
 * whether one does otherwise depends on what it ran before.
 */
export async function startedAsTheHosts(pool: postgres.Sql, size: number): Promise<void> {
  const connections = await Promise.all(Array.from({ length: size }, () => pool.reserve()));
  await Promise.all(connections.map((c) => c.unsafe(RAISE_MALLOC_THRESHOLDS.sql)));
  for (const c of connections) c.release();
}
