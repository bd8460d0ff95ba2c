/**
 * Bearer authentication for every `/api` route but sign-in and refresh (spec 5.2). Missing and
 * invalid tokens get the same kind of 401 with `WWW-Authenticate`; why a token failed is logged,
 * never told.
 */
import { ServiceError } from "@bizdata/core";
import type { MiddlewareHandler } from "hono";
import { decodeJwt } from "jose";
import { TokenRejected, type TokenSettings, VerifiedTokens, verifyAccessToken } from "./access-tokens.js";
import { canRead, type Principal } from "./principal.js";
import type { SigningKeys } from "./signing-keys.js";
import type { GrantStanding } from "./token-grants.js";
import { SCOPES, type ThirdPartyVerifier } from "./trusted-issuers.js";

/** who is calling, and the bearer token they called with (the rate limit counts by it) */
export type AuthVariables = { principal: Principal; accessToken: string };

export const unauthorized = (message: string, challenge: string) =>
  new ServiceError("Unauthorized", message, undefined, []).withHeaders({ "WWW-Authenticate": challenge });

export interface AuthenticateOptions {
  /** verifier for tokens of trusted third-party issuers, when any are configured */
  readonly thirdParty?: ThirdPartyVerifier;
  /** the protected-resource metadata address named in challenges (RFC 9728) */
  readonly resourceMetadata: (requestUrl: string) => string;
  /** whether a sign-in token's grant stands, and its user's roles now */
  readonly standing: GrantStanding;
}

export function authenticate(
  keys: SigningKeys,
  settings: TokenSettings,
  options: AuthenticateOptions,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const verified = new VerifiedTokens();
  return async (c, next) => {
    // the challenges name it: made only for a request that is refused
    const metadata = () => `resource_metadata="${options.resourceMetadata(c.req.url)}"`;
    // OAuth 2.1: tokens travel only in the Authorization header, never in a URL
    if (c.req.url.includes("access_token") && new URL(c.req.url).searchParams.has("access_token")) {
      throw unauthorized(
        "Send the access token in the Authorization header, not in the URL.",
        `Bearer realm="api", error="invalid_request", ${metadata()}`,
      );
    }
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
    if (match === null) {
      throw unauthorized(
        "An access token is required: send Authorization: Bearer <token>.",
        `Bearer realm="api", ${metadata()}`,
      );
    }
    const token = match[1]!;
    let principal: Principal;
    try {
      principal =
        options.thirdParty !== undefined && issuerOf(token) !== settings.issuer
          ? await options.thirdParty(token)
          : await verifyAccessToken(keys, settings, token, options.standing, verified);
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      throw unauthorized(
        "The access token is invalid or has expired.",
        `Bearer realm="api", error="invalid_token", error_description="The access token is invalid or has expired", ${metadata()}`,
      );
    }
    if (!canRead(principal)) {
      throw new ServiceError("Forbidden", "The token grants no scope of this API.").withHeaders({
        "WWW-Authenticate": `Bearer realm="api", error="insufficient_scope", scope="${SCOPES.read} ${SCOPES.write}", ${metadata()}`,
      });
    }
    c.set("principal", principal);
    c.set("accessToken", token);
    await next();
  };
}

/** the `iss` a token claims (unverified: it only picks the verifier) */
function issuerOf(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}
