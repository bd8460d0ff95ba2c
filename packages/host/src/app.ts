/**
 * The Hono application: health, sign-in, and the entity API, with errors mapped in one place
 * and `OData-Version: 4.01` on every response. It takes an open database and a model, so it can
 * be embedded in another Node server or driven in tests through `app.request`.
 */
import type { Database, Model } from "@bizdata/core";
import { WarmScopes } from "@bizdata/workflow";
import { Hono } from "hono";
import pino, { type Logger } from "pino";
import { batchRoute } from "./api/batch-route.js";
import { entityRoutes } from "./api/entity-routes.js";
import { errorResponse } from "./api/error-response.js";
import { workflowRoutes } from "./api/workflow-routes.js";
import { workflowStep } from "./api/workflow-step.js";
import { type AuthSettings, authRoutes } from "./auth/auth-routes.js";
import { type AuthVariables, authenticate } from "./auth/authenticate.js";
import type { SigningKeys } from "./auth/signing-keys.js";
import { SCOPES, thirdPartyVerifier } from "./auth/trusted-issuers.js";
import type { HostConfig } from "./config.js";
import { findUser } from "./tenants/tenant-admin.js";

export interface AppOptions {
  readonly db: Database;
  readonly model: Model;
  readonly keys: SigningKeys;
  readonly config: Pick<
    HostConfig,
    "auth" | "queryLimits" | "bodyLimits" | "logLevel" | "workflowTtl" | "warmWorkflowScopes" | "oauthIssuers" | "roles"
  >;
  /** defaults to a pino logger at `config.logLevel` */
  readonly logger?: Logger;
}

export function createApp({ db, model, keys, config, logger = pino({ level: config.logLevel }) }: AppOptions) {
  const auth: AuthSettings = config.auth;
  const app = new Hono<{ Variables: AuthVariables }>();

  // set before the handler runs, so responses stay on @hono/node-server's fast path (a header
  // added to a finished response forces a slower copy); onError sets it on errors itself
  app.use("*", async (c, next) => {
    c.header("OData-Version", "4.01");
    await next();
  });

  app.onError((err, c) => {
    const { status, error, headers, unexpected } = errorResponse(err, model);
    if (unexpected) logger.error({ err, method: c.req.method, path: c.req.path }, "request failed");
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header("OData-Version", "4.01");
    return c.json(error.toJSON(), status as 400);
  });

  app.notFound((c) => c.json({ error: { code: "NotFound", message: `No resource at ${c.req.path}.` } }, 404));

  app.get("/health", async (c) => {
    await db.query({ sql: "SELECT 1", params: [] });
    return c.json({ status: "ok" });
  });
  app.get("/.well-known/jwks.json", (c) => c.json(keys.jwks));

  app.route("/api/auth", authRoutes(db, keys, auth));
  const resourceMetadata = (url: string) => `${new URL(url).origin}/.well-known/oauth-protected-resource`;
  // RFC 9728: how a client (an agent connector) finds out where to get a token for this API
  app.get("/.well-known/oauth-protected-resource", (c) =>
    c.json({
      resource: `${new URL(c.req.url).origin}/api`,
      authorization_servers: config.oauthIssuers.map((i) => i.issuer),
      scopes_supported: [SCOPES.read, SCOPES.write],
      bearer_methods_supported: ["header"],
      resource_name: "bizdata API",
    }),
  );
  const thirdParty = thirdPartyVerifier(config.oauthIssuers);
  const userRoles = async (tenantId: string, username: string) => (await findUser(db, tenantId, username))?.roles;
  app.use("/api/*", authenticate(keys, auth, { resourceMetadata, userRoles, ...(thirdParty && { thirdParty }) }));
  const workflows = {
    ttlSeconds: config.workflowTtl,
    scopes: new WarmScopes(config.warmWorkflowScopes === undefined ? {} : { enabled: config.warmWorkflowScopes }),
  };
  app.use("/api/*", workflowStep(db, workflows));
  app.route("/api", workflowRoutes(db, model, { ...workflows, queryLimits: config.queryLimits }));
  app.post(
    "/api/$batch",
    batchRoute(db, model, config.bodyLimits, async (request) => app.fetch(request)),
  );
  app.route("/api", entityRoutes(db, model, { ...config, roles: config.roles }));
  return app;
}

export type App = ReturnType<typeof createApp>;
