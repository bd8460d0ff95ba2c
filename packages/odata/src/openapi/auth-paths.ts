/**
 * Sign-in, refresh and sign-out (spec 5.2, api-conventions: Authentication): the operations a
 * caller reaches without a token; the first two answer with the token pair the others need.
 */

import { commonSchemaRef, json, responseRef } from "./common-components.js";
import type { Operation, PathItem, Schema } from "./openapi-types.js";

export const AUTH_TAG = "Sign-in and tokens";

/** the operations that answer a token pair: a docs page may take the access token from them */
export const TOKEN_PATHS = ["/auth/signin", "/auth/refresh"] as const;

const tokenPair: Schema = {
  type: "object",
  required: ["access_token", "refresh_token", "token_type", "expires_in"],
  properties: {
    access_token: { type: "string", description: "A JWT to send as `Authorization: Bearer …`." },
    refresh_token: { type: "string", description: "Single use: gives the next pair." },
    token_type: { type: "string", enum: ["Bearer"] },
    expires_in: { type: "integer", description: "Seconds the access token is valid." },
  },
};

const tokenOperation = (operationId: string, summary: string, body: Schema, rejected: string): Operation => ({
  operationId,
  tags: [AUTH_TAG],
  summary,
  security: [],
  requestBody: { required: true, content: json(body) },
  responses: {
    "200": {
      description: "A new token pair.",
      headers: { "Cache-Control": { schema: { type: "string", enum: ["no-store"] } } },
      content: json(tokenPair),
    },
    "400": responseRef("BadRequest"),
    "401": {
      description: rejected,
      content: json(commonSchemaRef("Error")),
    },
    default: responseRef("Error"),
  },
});

const nonEmpty = { type: "string", minLength: 1, maxLength: 1024 } as const;

export const authPaths: Record<string, PathItem> = {
  [TOKEN_PATHS[0]]: {
    post: tokenOperation(
      "auth_signin",
      "Sign in",
      {
        type: "object",
        required: ["TenantId", "Username", "Password"],
        properties: { TenantId: nonEmpty, Username: nonEmpty, Password: { ...nonEmpty, format: "password" } },
      },
      "The tenant, user name or password is not correct (the answer does not say which); repeated failures answer 429.",
    ),
  },
  [TOKEN_PATHS[1]]: {
    post: tokenOperation(
      "auth_refresh",
      "Exchange a refresh token for a new pair",
      { type: "object", required: ["refresh_token"], properties: { refresh_token: nonEmpty } },
      "Unknown, expired or used refresh token; presenting a used one revokes every token of that sign-in.",
    ),
  },
  "/auth/signout": {
    post: {
      operationId: "auth_signout",
      tags: [AUTH_TAG],
      summary: "Sign out: revoke a sign-in's refresh and access tokens",
      security: [],
      requestBody: {
        required: true,
        content: json({ type: "object", required: ["refresh_token"], properties: { refresh_token: nonEmpty } }),
      },
      responses: {
        "204": {
          description:
            "Every token of the refresh token's sign-in is revoked; an unknown token is answered the same and revokes nothing.",
        },
        "400": responseRef("BadRequest"),
        default: responseRef("Error"),
      },
    },
  },
};
