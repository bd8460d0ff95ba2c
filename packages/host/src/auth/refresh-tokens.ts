/**
 * Opaque refresh tokens: `<tenant>.<random>`, stored only as a SHA-256 hash, single use. Each use
 * rotates to a new token of the same family; presenting a used token again means it was stolen,
 * so the whole family is revoked. The family is the grant the access tokens of the sign-in name
 * (token-grants.ts): revoking it refuses them too.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Database, inTenant, isTenantId, tableQueries } from "@bizdata/core";
import { and, eq, inArray, sql } from "drizzle-orm";
import { refreshTokenTable as r } from "./auth-tables.js";

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
    tableQueries(tx)
      .insert(r)
      .values({
        tenantId,
        tokenHash: hash(token),
        username,
        family,
        expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`,
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
    const db = tableQueries(tx);
    const thisToken = and(eq(r.tenantId, tenantId), eq(r.tokenHash, hash(token)));
    const [row] = await db
      .select({
        username: r.username,
        family: r.family,
        used: sql<boolean>`${r.usedAt} IS NOT NULL`.as("used"),
        revoked: r.revoked,
        expired: sql<boolean>`${r.expiresAt} < now()`.as("expired"),
      })
      .from(r)
      .where(thisToken)
      .for("update");
    if (row === undefined) return { ok: false } as const;
    if (row.used) {
      await db
        .update(r)
        .set({ revoked: true })
        .where(and(eq(r.tenantId, tenantId), eq(r.family, row.family)));
      return { ok: false } as const;
    }
    if (row.revoked || row.expired) return { ok: false } as const;
    await db.update(r).set({ usedAt: sql`now()` }).where(thisToken);
    return { ok: true, tenantId, username: row.username, family: row.family } as const;
  });
}

/**
 * Sign-out: revokes the family of `token` (and with it the access tokens issued under it,
 * token-grants.ts). An unknown token revokes nothing, and is not told apart (RFC 7009 2.2).
 */
export async function revokeRefreshFamily(db: Database, token: string): Promise<void> {
  const tenantId = token.slice(0, token.indexOf("."));
  if (!isTenantId(tenantId)) return;
  await inTenant(db, tenantId, (tx) => {
    const q = tableQueries(tx);
    const family = q
      .select({ family: r.family })
      .from(r)
      .where(and(eq(r.tenantId, tenantId), eq(r.tokenHash, hash(token))));
    return q
      .update(r)
      .set({ revoked: true })
      .where(and(eq(r.tenantId, tenantId), inArray(r.family, family)));
  });
}
