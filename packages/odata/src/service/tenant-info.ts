/**
 * Tenant features for writes and method calls, read once and kept for a few seconds: a feature
 * changes rarely (an administrator's command) while every write needs the set, and the read
 * cost a round trip per write. A change applies within `TTL_MS`.
 */
import { loadTenant, type Session, type TenantInfo } from "@bizdata/core";

const TTL_MS = 5_000;
const known = new Map<string, { readonly info: TenantInfo; readonly until: number }>();

/** the tenant's id and enabled features, from the cache when read in the last few seconds */
export async function tenantInfo(session: Session, tenantId: string): Promise<TenantInfo> {
  const hit = known.get(tenantId);
  if (hit !== undefined && hit.until > Date.now()) return hit.info;
  const info = await loadTenant(session, tenantId);
  if (known.size >= 10_000) known.clear();
  known.set(tenantId, { info, until: Date.now() + TTL_MS });
  return info;
}
