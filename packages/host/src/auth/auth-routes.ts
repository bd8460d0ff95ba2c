/**
 * `POST /api/auth/signin`, `POST /api/auth/refresh` and `POST /api/auth/signout` (api-conventions:
 * Authentication). Every credential failure gets the same 401 body (sign-in-check.ts: nor does
 * its timing tell which part was wrong).
 */
import { type Database, ServiceError } from "@bizdata/core";
import { defaultBodyLimits, readJsonBody } from "@bizdata/odata";
import { Hono } from "hono";
import { requestClientAddress } from "../observability/request-context.js";
import { findUser } from "../tenants/tenant-admin.js";
import { issueAccessToken, type TokenSettings } from "./access-tokens.js";
import { consumeRefreshToken, issueRefreshToken, revokeRefreshFamily } from "./refresh-tokens.js";
import { checkSignIn } from "./sign-in-check.js";
import { defaultThrottle, type ThrottleSettings } from "./sign-in-throttle.js";
import type { SigningKeys } from "./signing-keys.js";

export interface AuthSettings extends TokenSettings {
  /** seconds */
  readonly refreshTokenTtl: number;
}

const credentialsRejected = () =>
  new ServiceError("Unauthorized", "The tenant, user name or password is not correct.").withHeaders({
    "WWW-Authenticate": 'Bearer realm="api"',
  });

const authLimits = { ...defaultBodyLimits, maxBytes: 16 * 1024 };

const stringField = (body: unknown, name: string): string => {
  const value =
    body !== null && typeof body === "object" && Object.hasOwn(body, name)
      ? (body as Record<string, unknown>)[name]
      : undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 1024) {
    throw new ServiceError("ValidationError", `${name} is required and must be a non-empty string.`, name);
  }
  return value;
};

export function authRoutes(
  db: Database,
  keys: SigningKeys,
  settings: AuthSettings,
  throttle: ThrottleSettings = defaultThrottle,
) {
  /** a new pair; the access token names the refresh token's family as its grant */
  const tokens = async (tenantId: string, username: string, family: string = crypto.randomUUID()) => ({
    access_token: await issueAccessToken(keys, settings, { tenantId, username, grantId: family }),
    refresh_token: await issueRefreshToken(db, tenantId, username, settings.refreshTokenTtl, family),
    token_type: "Bearer",
    expires_in: settings.accessTokenTtl,
  });

  return new Hono()
    .post("/signin", async (c) => {
      const body = await readJsonBody(c.req.raw, authLimits);
      const tenantId = stringField(body, "TenantId");
      const username = stringField(body, "Username");
      const outcome = await checkSignIn(
        db,
        tenantId,
        username,
        stringField(body, "Password"),
        requestClientAddress(c),
        throttle,
      );
      if (outcome.kind === "throttled") {
        throw new ServiceError("TooManyAttempts", "Too many failed sign-ins; try again later.").withHeaders({
          "Retry-After": String(outcome.retryAfter),
        });
      }
      if (outcome.kind === "rejected") throw credentialsRejected();
      c.header("Cache-Control", "no-store");
      return c.json(await tokens(tenantId, username));
    })
    .post("/refresh", async (c) => {
      const body = await readJsonBody(c.req.raw, authLimits);
      const outcome = await consumeRefreshToken(db, stringField(body, "refresh_token"));
      if (!outcome.ok) throw credentialsRejected();
      // a removed user's refresh tokens are refused
      if ((await findUser(db, outcome.tenantId, outcome.username)) === undefined) throw credentialsRejected();
      c.header("Cache-Control", "no-store");
      return c.json(await tokens(outcome.tenantId, outcome.username, outcome.family));
    })
    .post("/signout", async (c) => {
      const body = await readJsonBody(c.req.raw, authLimits);
      await revokeRefreshFamily(db, stringField(body, "refresh_token"));
      return c.body(null, 204);
    });
}
