/**
 * postgres.js pools whose connections are opened as the host's tenant sessions are once set: in
 * the application role, holding the tenant, read-only for reads (core's postgres-database.ts). The
 * isolated floor (floor-server.ts) and bench:layers' postgres.js layer (layers.ts) send on them
 * what the host sends on its own.
 */
import { APP_ROLE } from "@bizdata/core";
import postgres from "postgres";

export function tenantSessions(url: string, options: postgres.Options<{}>, tenant: string) {
  const pool = (readOnly: boolean) =>
    postgres(url, {
      ...options,
      connection: {
        ...options.connection,
        role: APP_ROLE,
        // the host plans every read for its values and leaves a write's cached plans (those of
        // its foreign-key checks) to PostgreSQL
        ...(readOnly ? { default_transaction_read_only: true } : { plan_cache_mode: "auto" }),
        "app.tenant_id": tenant,
      },
    });
  return { reads: pool(true), writes: pool(false) };
}
