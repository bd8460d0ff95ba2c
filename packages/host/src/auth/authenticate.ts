/**
 * Bearer authentication for every `/api` route but sign-in and refresh (spec 5.2). Missing and
 * invalid tokens get the same kind of 401 with `WWW-Authenticate`; why a token failed is logged,
 * never told.
 */
import { ServiceError } from "@bizdata/core";
import type { MiddlewareHandler } from "hono";
import { TokenRejected, type TokenSettings, VerifiedTokens, verifyAccessToken } from "./access-tokens.js";
import type { Principal } from "./principal.js";
import type { SigningKeys } from "./signing-keys.js";

export type AuthVariables = { principal: Principal };

export const unauthorized = (message: string, challenge: string) =>
  new ServiceError(401, "Unauthorized", message, undefined, []).withHeaders({ "WWW-Authenticate": challenge });

export function authenticate(
  keys: SigningKeys,
  settings: TokenSettings,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const verified = new VerifiedTokens();
  return async (c, next) => {
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
    if (match === null) {
      throw unauthorized("An access token is required: send Authorization: Bearer <token>.", 'Bearer realm="api"');
    }
    try {
      c.set("principal", await verifyAccessToken(keys, settings, match[1]!, verified));
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      throw unauthorized(
        "The access token is invalid or has expired.",
        'Bearer realm="api", error="invalid_token", error_description="The access token is invalid or has expired"',
      );
    }
    await next();
  };
}
