/**
 * The Hono application: health, sign-in, and the entity API, with errors mapped in one place
 * and `OData-Version` on every response: 4.01, or 4.0 for a client whose `OData-MaxVersion` says
 * so (the payloads are the same in both: nothing 4.01-only is written). It takes an open database and a model, so it can
 * be embedded in another Node server or driven in tests through `app.request`.
 */
import type { Database, Model } from "@bizdata/core";
import { createODataService, inChangeset, odataVersion, runBatch } from "@bizdata/odata";
import { createWorkflowService, WarmScopes } from "@bizdata/workflow";
import { type Context, Hono } from "hono";
import pino, { type Logger } from "pino";
import { entityRoutes, send } from "./api/entity-routes.js";
import { errorResponse } from "./api/error-response.js";
import { metadataRoutes } from "./api/metadata-routes.js";
import { workflowRoutes, workflowStep } from "./api/workflow-routes.js";
import { type AuthSettings, authRoutes } from "./auth/auth-routes.js";
import { type AuthVariables, authenticate } from "./auth/authenticate.js";
import type { SigningKeys } from "./auth/signing-keys.js";
import { SCOPES, thirdPartyVerifier } from "./auth/trusted-issuers.js";
import type { HostConfig } from "./config.js";
import { healthRoutes } from "./lifecycle/health-routes.js";
import { type ObservabilitySettings, observeHost } from "./observability/observe-host.js";
import { requestLogger } from "./observability/request-context.js";
import { findUser } from "./tenants/tenant-admin.js";

export interface AppOptions {
  readonly db: Database;
  readonly model: Model;
  readonly keys: SigningKeys;
  readonly config: Pick<
    HostConfig,
    "auth" | "queryLimits" | "bodyLimits" | "logLevel" | "workflowTtl" | "warmWorkflowScopes" | "oauthIssuers" | "roles"
  > &
    ObservabilitySettings;
  /** defaults to a pino logger at `config.logLevel` */
  readonly logger?: Logger;
  /** where the API is mounted (default `/api`); every URL the service writes starts with it */
  readonly basePath?: string;
}

export function createApp({
  db: given,
  model,
  keys,
  config,
  logger = pino({ level: config.logLevel }),
  basePath: base = "/api",
}: AppOptions) {
  const auth: AuthSettings = config.auth;
  const app = new Hono<{ Variables: AuthVariables }>();
  // request ids, the request log line, metrics; `db` counts each request's statements
  const db = observeHost(app, given, config, logger);
  const service = createODataService({ db, model, basePath: base, queryLimits: config.queryLimits });
  const { basePath } = service;

  // set before the handler runs, so responses stay on @hono/node-server's fast path (a header
  // added to a finished response forces a slower copy); onError sets it on errors itself
  const version = (c: Context) => odataVersion(c.req.header("odata-maxversion"), "4.01");
  app.use("*", async (c, next) => {
    c.header("OData-Version", version(c));
    await next();
  });

  app.onError((err, c) => {
    const { status, error, headers, unexpected } = errorResponse(err, model);
    if (unexpected) requestLogger(logger).error({ err, method: c.req.method, path: c.req.path }, "request failed");
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header("OData-Version", version(c));
    return c.json(error.toJSON(), status as 400);
  });

  app.notFound((c) => c.json({ error: { code: "NotFound", message: `No resource at ${c.req.path}.` } }, 404));

  app.route("/health", healthRoutes(db, model, logger));
  app.get("/.well-known/jwks.json", (c) => c.json(keys.jwks));

  app.route(`${basePath}/auth`, authRoutes(db, keys, auth));
  const resourceMetadata = (url: string) => `${new URL(url).origin}/.well-known/oauth-protected-resource`;
  // RFC 9728: how a client (an agent connector) finds out where to get a token for this API
  app.get("/.well-known/oauth-protected-resource", (c) =>
    c.json({
      resource: `${new URL(c.req.url).origin}${basePath}`,
      authorization_servers: config.oauthIssuers.map((i) => i.issuer),
      scopes_supported: [SCOPES.read, SCOPES.write],
      bearer_methods_supported: ["header"],
      resource_name: "bizdata API",
    }),
  );
  const thirdParty = thirdPartyVerifier(config.oauthIssuers);
  const userRoles = async (tenantId: string, username: string) => (await findUser(db, tenantId, username))?.roles;
  app.use(
    `${basePath}/*`,
    authenticate(keys, auth, { resourceMetadata, userRoles, ...(thirdParty && { thirdParty }) }),
  );
  const workflows = createWorkflowService({
    db,
    model,
    planner: service.planner,
    basePath,
    ttlSeconds: config.workflowTtl,
    scopes: new WarmScopes(config.warmWorkflowScopes === undefined ? {} : { enabled: config.warmWorkflowScopes }),
  });
  app.use(`${basePath}/*`, workflowStep(workflows));
  app.route(basePath, workflowRoutes(workflows));
  app.post(`${basePath}/$batch`, async (c) => {
    const { tenantId } = c.get("principal");
    const result = await runBatch(c.req.raw, {
      model,
      basePath,
      bodyLimits: config.bodyLimits,
      tenantId,
      handle: async (request) => app.fetch(request),
      changeset: (prefetch, parts) => inChangeset(db, tenantId, prefetch, parts),
    });
    return send(c, result);
  });
  app.route("/", metadataRoutes(db, model, basePath));
  app.route(basePath, entityRoutes(service, { bodyLimits: config.bodyLimits, roles: config.roles }));
  return app;
}

export type App = ReturnType<typeof createApp>;
