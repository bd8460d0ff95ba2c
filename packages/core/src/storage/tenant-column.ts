/**
 * The column a table keeps its rows' tenant in. Every key, index, join, foreign key and
 * row-level-security policy compares it, so it compares byte by byte (`COLLATE "C"`) whatever
 * collation the database was created with: in a database whose collation is ICU's `en-US`, the
 * same statements cost PostgreSQL 4-29% more over a tenant column in that collation (`pnpm
 * bench:tenant-keys`). Tenant ids are short identifiers (isTenantId), which byte order sorts as
 * well as any. A tenant column that an earlier version made in the database's collation gets this
 * one from migrate (byte-order-upgrade.ts); until it does (a large table waits to be asked), the
 * two compare well defined, the database's collation giving way to "C" in a join or a UNION.
 */
import { customType } from "drizzle-orm/pg-core";

export const tenantColumn = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});
