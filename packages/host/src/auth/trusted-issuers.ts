/**
 * Access tokens from third-party OAuth 2.1 authorization servers (spec 5.3-5.4): JWT access
 * tokens (RFC 9068) checked per the JWT best practices (RFC 8725) — only the configured
 * algorithms, the signature against the issuer's JWKS (fetched again when a token names an
 * unknown `kid`), `iss`, `aud`, `exp` and `nbf` with a small clock skew, and `typ: at+jwt`.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { TokenRejected } from "./access-tokens.js";
import type { Principal } from "./principal.js";
import type { GrantStanding } from "./token-grants.js";

export interface TrustedIssuer {
  readonly issuer: string;
  /** the audience tokens must name: this API's identifier at that issuer (one of several, for this host's own server) */
  readonly audience: string | readonly string[];
  /** where the issuer publishes its keys, or the keys themselves */
  readonly jwksUri?: string;
  readonly jwks?: JSONWebKeySet;
  /** the keys as a lookup (the host's own authorization server: the host's signing keys) */
  readonly keys?: JWTVerifyGetKey;
  /**
   * this host's own authorization server: a token's subject is a user of its tenant and its
   * `gid` a grant of the server; the caller is that user with the user's current roles, and a
   * token whose grant was revoked or whose user is gone is refused (token-grants.ts)
   */
  readonly grants?: GrantStanding;
  /** claim naming the tenant (default `tid`), the subject (`sub`) and the scopes (`scope`, space-separated, or an array) */
  readonly tenantClaim?: string;
  readonly subjectClaim?: string;
  readonly scopeClaim?: string;
  /** default: RS256, PS256, ES256, EdDSA — never `none`, never an HMAC algorithm */
  readonly algorithms?: readonly string[];
  /**
   * where a person authorizes and where the client gets the token (RFC 8414 metadata), for the
   * OpenAPI document's OAuth2 scheme; without both it names the issuer's discovery document
   */
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  /** least time between two fetches of the JWKS for unknown `kid`s (default 30), so random kids cannot flood the issuer */
  readonly jwksCooldownSeconds?: number;
}

/** the scopes this API knows: read, and read-write (api-conventions: Authentication) */
export const SCOPES = { read: "bizdata.read", write: "bizdata.write" } as const;

const DEFAULT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];

export type ThirdPartyVerifier = (token: string) => Promise<Principal>;

/** the roles of a local user, or undefined when the tenant has no such user */
export type UserRoles = (tenantId: string, username: string) => Promise<readonly string[] | undefined>;

/** a delegated token carries what its scopes grant: read, or read and write */
const scopeRoles = (scopes: readonly string[]) =>
  scopes.includes(SCOPES.write) ? ["admin"] : scopes.includes(SCOPES.read) ? ["reader"] : [];

/**
 * Verifies tokens of `issuers`. A token whose subject is a user of its tenant acts with that
 * user's roles (`userRoles`), narrowed by its scopes in permissions.ts; otherwise with what its
 * scopes grant.
 */
export function thirdPartyVerifier(
  issuers: readonly TrustedIssuer[],
  userRoles?: UserRoles,
): ThirdPartyVerifier | undefined {
  if (issuers.length === 0) return undefined;
  const byIssuer = new Map<string, { config: TrustedIssuer; keys: JWTVerifyGetKey }>();
  for (const config of issuers) {
    if (!config.keys && !config.jwksUri && !config.jwks)
      throw new Error(`Trusted issuer ${config.issuer}: give jwksUri or jwks.`);
    const keys =
      config.keys ??
      (config.jwks
        ? createLocalJWKSet(config.jwks)
        : createRemoteJWKSet(new URL(config.jwksUri!), {
            cooldownDuration: (config.jwksCooldownSeconds ?? 30) * 1000,
          }));
    byIssuer.set(config.issuer, { config, keys });
  }
  return async (token) => {
    let claimedIssuer: unknown;
    try {
      claimedIssuer = decodeJwt(token).iss;
    } catch {
      throw new TokenRejected("malformed");
    }
    const trusted = typeof claimedIssuer === "string" ? byIssuer.get(claimedIssuer) : undefined;
    if (trusted === undefined) throw new TokenRejected("issuer not trusted");
    const { config, keys } = trusted;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: config.issuer,
        audience: typeof config.audience === "string" ? config.audience : [...config.audience],
        algorithms: [...(config.algorithms ?? DEFAULT_ALGORITHMS)],
        clockTolerance: 30,
        typ: "at+jwt",
        requiredClaims: ["exp", "sub"],
      });
      const claims = payload as Record<string, unknown>;
      const tenantId = claims[config.tenantClaim ?? "tid"];
      const subject = claims[config.subjectClaim ?? "sub"];
      const scopeValue = claims[config.scopeClaim ?? "scope"];
      const scopes = Array.isArray(scopeValue)
        ? scopeValue.map(String)
        : typeof scopeValue === "string"
          ? scopeValue.split(" ")
          : [];
      if (typeof tenantId !== "string" || typeof subject !== "string") throw new TokenRejected("claims");
      if (config.grants !== undefined) {
        const grantId = claims.gid;
        if (typeof grantId !== "string") throw new TokenRejected("no grant");
        const roles = await config.grants({ kind: "oauth", tenantId, username: subject, id: grantId });
        if (roles === undefined) throw new TokenRejected("grant revoked or user removed");
        return { tenantId, username: subject, roles, scopes };
      }
      const own = await userRoles?.(tenantId, subject);
      return { tenantId, username: `${config.issuer}#${subject}`, roles: own ?? scopeRoles(scopes), scopes };
    } catch (err) {
      if (err instanceof TokenRejected) throw err;
      if (err instanceof errors.JOSEError) throw new TokenRejected(err.code);
      throw err;
    }
  };
}
