/**
 * The host's own access tokens: short-lived ES256 JWTs naming tenant, user and grant (`gid`: the
 * sign-in's refresh-token family). Verified strictly: the one algorithm, our issuer and audience,
 * a known `kid`, expiry with a small skew; then the grant must still stand, and the user's roles
 * are the ones stored now (token-grants.ts), as for the OAuth server's tokens.
 */
import { BoundedMap } from "@bizdata/core";
import { type CryptoKey, errors, type JWTHeaderParameters, jwtVerify, SignJWT } from "jose";
import type { Principal } from "./principal.js";
import { ALGORITHM, type SigningKeys } from "./signing-keys.js";
import type { GrantStanding } from "./token-grants.js";

export interface TokenSettings {
  readonly issuer: string;
  readonly audience: string;
  /** seconds */
  readonly accessTokenTtl: number;
}

/** whom a token is for, under which grant (a refresh-token family) */
export interface TokenSubject {
  readonly tenantId: string;
  readonly username: string;
  readonly grantId: string;
}

export async function issueAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  subject: TokenSubject,
): Promise<string> {
  return new SignJWT({ tid: subject.tenantId, gid: subject.grantId })
    .setProtectedHeader({ alg: ALGORITHM, kid: keys.current.kid, typ: "at+jwt" })
    .setSubject(subject.username)
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

/** a verified token's subject and expiry (epoch seconds) */
interface Verified {
  readonly subject: TokenSubject;
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

  get(token: string): TokenSubject | undefined {
    const hit = this.entries.get(token);
    if (hit === undefined) return undefined;
    if (hit.exp * 1000 <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return hit.subject;
  }

  set(token: string, verified: Verified): void {
    this.entries.set(token, verified);
  }
}

export async function verifyAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  token: string,
  standing: GrantStanding,
  cache?: VerifiedTokens,
): Promise<Principal> {
  const subject = cache?.get(token) ?? (await verifySignature(keys, settings, token, cache));
  const roles = await standing({ kind: "sign-in", ...subject, id: subject.grantId });
  if (roles === undefined) throw new TokenRejected("grant revoked or user removed");
  return { tenantId: subject.tenantId, username: subject.username, roles };
}

async function verifySignature(
  keys: SigningKeys,
  settings: TokenSettings,
  token: string,
  cache: VerifiedTokens | undefined,
): Promise<TokenSubject> {
  try {
    const { payload } = await jwtVerify(token, verificationKey(keys), {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: 30,
      typ: "at+jwt",
    });
    const { sub, tid, gid, exp } = payload as { sub?: unknown; tid?: unknown; gid?: unknown; exp?: unknown };
    // a token without a grant (issued before tokens named one) is refused: its client refreshes
    if (typeof sub !== "string" || typeof tid !== "string" || typeof gid !== "string" || typeof exp !== "number") {
      throw new TokenRejected("claims");
    }
    const subject = { tenantId: tid, username: sub, grantId: gid };
    cache?.set(token, { subject, exp });
    return subject;
  } catch (err) {
    if (err instanceof TokenRejected) throw err;
    if (err instanceof errors.JOSEError) throw new TokenRejected(err.code);
    throw err;
  }
}
