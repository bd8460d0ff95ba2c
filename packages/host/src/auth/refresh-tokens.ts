/**
 * Opaque refresh tokens: `<tenant>.<random>`, stored only as a SHA-256 hash, single use. Each use
 * rotates to a new token of the same family; presenting a used token again means it was stolen,
 * so the whole family is revoked.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Database, inTenant, isTenantId } from "@bizdata/core";

const hash = (token: string) => createHash("sha256").update(token).digest("base64url");

export async function issueRefreshToken(
  db: Database,
  tenantId: string,
  username: string,
  ttlSeconds: number,
  family: string = crypto.randomUUID(),
): Promise<string> {
  const token = `${tenantId}.${randomBytes(32).toString("base64url")}`;
  await inTenant(db, tenantId, (tx) =>
    tx.query({
      sql: `INSERT INTO bizdata_refresh_token (tenant_id, token_hash, username, family, expires_at)
            VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      params: [tenantId, hash(token), username, family, ttlSeconds],
    }),
  );
  return token;
}

export type RefreshOutcome =
  | { readonly ok: true; readonly tenantId: string; readonly username: string; readonly family: string }
  | { readonly ok: false };

/** Consumes a refresh token: valid once, before expiry, in an unrevoked family. */
export async function consumeRefreshToken(db: Database, token: string): Promise<RefreshOutcome> {
  const tenantId = token.slice(0, token.indexOf("."));
  if (!isTenantId(tenantId)) return { ok: false };
  return inTenant(db, tenantId, async (tx) => {
    const [row] = await tx.query<{
      username: string;
      family: string;
      used: boolean;
      revoked: boolean;
      expired: boolean;
    }>({
      sql: `SELECT username, family::text AS family, used_at IS NOT NULL AS used, revoked, expires_at < now() AS expired
            FROM bizdata_refresh_token WHERE tenant_id = $1 AND token_hash = $2 FOR UPDATE`,
      params: [tenantId, hash(token)],
    });
    if (row === undefined) return { ok: false } as const;
    if (row.used) {
      await tx.query({
        sql: "UPDATE bizdata_refresh_token SET revoked = true WHERE tenant_id = $1 AND family = $2::uuid",
        params: [tenantId, row.family],
      });
      return { ok: false } as const;
    }
    if (row.revoked || row.expired) return { ok: false } as const;
    await tx.query({
      sql: "UPDATE bizdata_refresh_token SET used_at = now() WHERE tenant_id = $1 AND token_hash = $2",
      params: [tenantId, hash(token)],
    });
    return { ok: true, tenantId, username: row.username, family: row.family } as const;
  });
}
