/**
 * The host's own access tokens: short-lived ES256 JWTs naming tenant, user and roles. Verified
 * strictly: the one algorithm, our issuer and audience, a known `kid`, expiry with a small skew.
 */
import { errors, jwtVerify, SignJWT } from "jose";
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

export async function verifyAccessToken(keys: SigningKeys, settings: TokenSettings, token: string): Promise<Principal> {
  try {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid === undefined ? undefined : keys.verification.get(header.kid);
        if (key === undefined) throw new TokenRejected("unknown kid");
        return key;
      },
      {
        algorithms: [ALGORITHM],
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: 30,
        typ: "at+jwt",
      },
    );
    const { sub, tid, roles } = payload as { sub?: unknown; tid?: unknown; roles?: unknown };
    if (typeof sub !== "string" || typeof tid !== "string" || !Array.isArray(roles)) throw new TokenRejected("claims");
    return { tenantId: tid, username: sub, roles: roles.filter((r): r is string => typeof r === "string") };
  } catch (err) {
    if (err instanceof TokenRejected) throw err;
    if (err instanceof errors.JOSEError) throw new TokenRejected(err.code);
    throw err;
  }
}
