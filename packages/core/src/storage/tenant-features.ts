import { eq } from "drizzle-orm";
import type { TenantInfo } from "../model/hook-context.js";
import type { Session } from "./database.js";
import { tenantFeatureTable } from "./system-tables.js";
import { tableQueries } from "./table-queries.js";

/** The tenant and its enabled features, read inside the request's tenant transaction. */
export async function loadTenant(session: Session, tenantId: string): Promise<TenantInfo> {
  const rows = await tableQueries(session)
    .select({ feature: tenantFeatureTable.feature })
    .from(tenantFeatureTable)
    .where(eq(tenantFeatureTable.tenantId, tenantId));
  return { id: tenantId, features: new Set(rows.map((r) => r.feature)) };
}
