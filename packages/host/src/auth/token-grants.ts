/**
 * Whether an access token the host issued may still be used, and with which roles (RFC 9700
 * 4.14: revoking a grant revokes the access tokens issued under it). Every such token names its
 * grant (`gid`): a password sign-in's refresh-token family, or the OAuth server's grant. Its
 * grant revoked (a refresh token or a code used twice, `/oauth/revoke`, sign-out) or its user
 * removed, the token is refused on the next request on every host; a demoted user's token has
 * the new roles. What a host read is kept for `cacheMs` (5 s by default), the bound on how long
 * a token outlives its grant there.
 */
import { BoundedMap, type Database, inTenant, isTenantId, tableQueries } from "@bizdata/core";
import { and, eq, exists, gt, isNull, not, or, type SQL, sql } from "drizzle-orm";
import { storedRoles } from "../tenants/tenant-admin.js";
import { oauthStateTable as o, refreshTokenTable as r, userTable as u } from "./auth-tables.js";

/** a token's grant: a password sign-in's refresh-token family, or a grant of the OAuth server */
export interface TokenGrant {
  readonly kind: "sign-in" | "oauth";
  readonly tenantId: string;
  readonly username: string;
  readonly id: string;
}

/** the user's current roles when the grant stands and the user is there; undefined when not */
export type GrantStanding = (grant: TokenGrant) => Promise<readonly string[] | undefined>;

export interface GrantCacheSettings {
  /** milliseconds a host keeps what it read (0: read on every request) */
  readonly cacheMs: number;
  /** most grants kept at once; the oldest goes first */
  readonly capacity?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** the stored rows that make `grant` stand (no unrevoked row of its family, no live grant: revoked) */
function grantRow(grant: TokenGrant): SQL | undefined {
  switch (grant.kind) {
    case "sign-in":
      if (!UUID.test(grant.id)) return undefined;
      return and(eq(r.tenantId, grant.tenantId), eq(r.family, grant.id), not(r.revoked));
    case "oauth":
      return and(eq(o.kind, "Grant"), eq(o.id, grant.id), or(isNull(o.expiresAt), gt(o.expiresAt, sql`now()`)));
  }
}

/** one statement, in the grant's tenant: the user's roles, if its grant stands */
async function readStanding(db: Database, grant: TokenGrant): Promise<readonly string[] | undefined> {
  const where = grantRow(grant);
  if (where === undefined || !isTenantId(grant.tenantId)) return undefined;
  const [row] = await inTenant(
    db,
    grant.tenantId,
    (tx) => {
      const q = tableQueries(tx);
      const stored = q
        .select({ one: sql`1` })
        .from(grant.kind === "sign-in" ? r : o)
        .where(where);
      return q
        .select({ roles: u.roles })
        .from(u)
        .where(and(eq(u.tenantId, grant.tenantId), eq(u.username, grant.username), exists(stored)));
    },
    { readOnly: true },
  );
  return row === undefined ? undefined : storedRoles(row.roles);
}

/** reads a grant's standing, kept for `cacheMs` per grant (a failed read is not kept) */
export function grantStanding(db: Database, { cacheMs, capacity = 10_000 }: GrantCacheSettings): GrantStanding {
  const kept = new BoundedMap<
    string,
    { readonly until: number; readonly roles: Promise<readonly string[] | undefined> }
  >(capacity);
  return (grant) => {
    if (cacheMs <= 0) return readStanding(db, grant);
    const key = `${grant.kind}\u0000${grant.tenantId}\u0000${grant.username}\u0000${grant.id}`;
    const now = Date.now();
    const hit = kept.get(key);
    if (hit !== undefined && hit.until > now) return hit.roles;
    // deleted first, so that it is set again as the newest
    kept.delete(key);
    const roles = readStanding(db, grant);
    kept.set(key, { until: now + cacheMs, roles });
    roles.catch(() => kept.delete(key));
    return roles;
  };
}
