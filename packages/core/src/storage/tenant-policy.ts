/**
 * Row-level security keyed on the current tenant (architecture: tenant predicates are added by
 * the compiler and PostgreSQL enforces them a second time). The application works as the
 * non-superuser role `APP_ROLE`, switched to per transaction, because a superuser or the table
 * owner would bypass the policies.
 */
import { type SQL, sql } from "drizzle-orm";

export const APP_ROLE = "bizdata_app";

/** the transaction-local setting that names the current tenant */
export const TENANT_SETTING = "app.tenant_id";

export const tenantPolicy = (column: string): { using: SQL; withCheck: SQL } => {
  const predicate = sql`${sql.identifier(column)} = current_setting(${sql.raw(`'${TENANT_SETTING}'`)}, true)`;
  return { using: predicate, withCheck: predicate };
};
