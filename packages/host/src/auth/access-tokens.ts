/**
 * The host's own access tokens: short-lived ES256 JWTs naming tenant, user and roles. Verified
 * strictly: the one algorithm, our issuer and audience, a known `kid`, expiry with a small skew.
 */
import { BoundedMap } from "@bizdata/core";
import { type CryptoKey, errors, type JWTHeaderParameters, jwtVerify, SignJWT } from "jose";
import type { Principal } from "./principal.js";
import { ALGORITHM, type SigningKeys } from "./signing-keys.js";

export interface TokenSettings {
  readonly issuer: string;
  readonly audience: string;
  /** seconds */
  readonly accessTokenTtl: number;
}

export async function issueAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  principal: Principal,
): Promise<string> {
  return new SignJWT({ tid: principal.tenantId, roles: principal.roles })
    .setProtectedHeader({ alg: ALGORITHM, kid: keys.current.kid, typ: "at+jwt" })
    .setSubject(principal.username)
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setIssuedAt()
    .setExpirationTime(`${settings.accessTokenTtl}s`)
    .setJti(crypto.randomUUID())
    .sign(keys.current.key);
}

/** why a token was refused, for the log; the client only ever sees one generic 401 */
export class TokenRejected extends Error {
  override readonly name = "TokenRejected";
}

/**
 * The stored key a token's `kid` names, for `jwtVerify`. A kid rotated in by another host is
 * looked for in the stored keys again before the token is refused.
 */
export const verificationKey =
  (keys: SigningKeys) =>
  async (header: JWTHeaderParameters): Promise<CryptoKey> => {
    if (header.kid !== undefined && !keys.verification.has(header.kid)) await keys.refresh();
    const key = header.kid === undefined ? undefined : keys.verification.get(header.kid);
    if (key === undefined) throw new TokenRejected("unknown kid");
    return key;
  };

/** a verified token's principal and expiry (epoch seconds) */
interface Verified {
  readonly principal: Principal;
  readonly exp: number;
}

/**
 * Remembers tokens already verified until they expire: a signature check costs ~0.2 ms of CPU,
 * paid once per token instead of once per request. Bounded; the oldest entry goes first.
 */
export class VerifiedTokens {
  private readonly entries: BoundedMap<string, Verified>;
  constructor(capacity = 10_000) {
    this.entries = new BoundedMap(capacity);
  }

  get(token: string): Principal | undefined {
    const hit = this.entries.get(token);
    if (hit === undefined) return undefined;
    if (hit.exp * 1000 <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return hit.principal;
  }

  set(token: string, verified: Verified): void {
    this.entries.set(token, verified);
  }
}

export async function verifyAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  token: string,
  cache?: VerifiedTokens,
): Promise<Principal> {
  const cached = cache?.get(token);
  if (cached !== undefined) return cached;
  try {
    const { payload } = await jwtVerify(token, verificationKey(keys), {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: 30,
      typ: "at+jwt",
    });
    const { sub, tid, roles, exp } = payload as { sub?: unknown; tid?: unknown; roles?: unknown; exp?: unknown };
    if (typeof sub !== "string" || typeof tid !== "string" || !Array.isArray(roles) || typeof exp !== "number") {
      throw new TokenRejected("claims");
    }
    const principal = { tenantId: tid, username: sub, roles: roles.filter((r): r is string => typeof r === "string") };
    cache?.set(token, { principal, exp });
    return principal;
  } catch (err) {
    if (err instanceof TokenRejected) throw err;
    if (err instanceof errors.JOSEError) throw new TokenRejected(err.code);
    throw err;
  }
}
