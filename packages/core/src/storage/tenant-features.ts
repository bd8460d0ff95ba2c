import type { TenantInfo } from "../model/hook-context.js";
import type { Session } from "./database.js";

/** The tenant and its enabled features, read inside the request's tenant transaction. */
export async function loadTenant(session: Session, tenantId: string): Promise<TenantInfo> {
  const rows = await session.query<{ feature: string }>({
    sql: "SELECT feature FROM bizdata_tenant_feature WHERE tenant_id = $1",
    params: [tenantId],
  });
  return { id: tenantId, features: new Set(rows.map((r) => r.feature)) };
}
