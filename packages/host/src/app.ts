/**
 * The Hono application: health, sign-in, the OAuth server when enabled, and the entity API, with
 * errors mapped in one place and `OData-Version` on every response: 4.01, or 4.0 for a client whose
 * `OData-MaxVersion` says so (the payloads are the same in both: nothing 4.01-only is written). It
 * takes an open database and a model, so it can
 * be embedded in another Node server or driven in tests through `app.request`.
 */
import { changeSource, type Database, type Model, notFound, ServiceError } from "@bizdata/core";
import {
  createODataService,
  errorResponse,
  errorResult,
  inChangeset,
  type ODataResult,
  odataVersion,
  runBatch,
} from "@bizdata/odata";
import { WEB_APP_CLIENT_ID, type WebAppFiles } from "@bizdata/web";
import { createWorkflowService, WarmScopes } from "@bizdata/workflow";
import { type Context, Hono } from "hono";
import type { Logger } from "pino";
import { authorOf, callService, entityRoutes, send } from "./api/entity-routes.js";
import { metadataRoutes, tenantFeaturesOf } from "./api/metadata-routes.js";
import { openApiRoutes } from "./api/openapi-routes.js";
import { WEB_APP_PATH, webAppRoutes } from "./api/web-app-routes.js";
import { stepHeadersOf, workflowCallerOf, workflowRoutes, workflowStep } from "./api/workflow-routes.js";
import { type AuthSettings, authRoutes } from "./auth/auth-routes.js";
import { type AuthVariables, authenticate } from "./auth/authenticate.js";
import { callerRights } from "./auth/caller-rights.js";
import { resourceMetadata, WELL_KNOWN } from "./auth/resource-metadata.js";
import type { SigningKeys } from "./auth/signing-keys.js";
import { grantStanding } from "./auth/token-grants.js";
import { thirdPartyVerifier } from "./auth/trusted-issuers.js";
import { CHANGES_PATH, changeStreamRoutes } from "./changes/change-stream-routes.js";
import { ChangeStreams } from "./changes/change-streams.js";
import type { HostConfig } from "./config.js";
import { healthRoutes } from "./lifecycle/health-routes.js";
import { limitedByAddress, limitedByToken, RateLimits } from "./limits/rate-limits.js";
import { sharedByTenants, TenantShare } from "./limits/tenant-share.js";
import { mcpPath, mcpRoutes } from "./mcp/mcp-routes.js";
import { ownIssuer } from "./oauth/oauth-provider.js";
import { mountOAuthServer } from "./oauth/oauth-routes.js";
import { hostLogger } from "./observability/host-logger.js";
import { type ObservabilitySettings, observeHost } from "./observability/observe-host.js";
import { requestDatabase, requestLogger } from "./observability/request-context.js";
import { findUser } from "./tenants/tenant-admin.js";
import { WEBHOOKS_SEGMENT, webhookRoutes } from "./webhooks/webhook-routes.js";

export interface AppOptions {
  readonly db: Database;
  readonly model: Model;
  readonly keys: SigningKeys;
  readonly config: Pick<
    HostConfig,
    | "auth"
    | "queryLimits"
    | "bodyLimits"
    | "batchLimits"
    | "writeLimits"
    | "logLevel"
    | "workflowTtl"
    | "warmWorkflowScopes"
    | "oauthIssuers"
    | "roles"
    | "mcpRowLimit"
    | "signInThrottle"
    | "oauthRegistration"
    | "tenantShare"
    | "rateLimits"
    | "changeLog"
    | "webhooks"
    | "changeStream"
  > &
    ObservabilitySettings;
  /** defaults to the host's logger (host-logger.ts): pino at `config.logLevel` on standard output, written asynchronously */
  readonly logger?: Logger;
  /** where the API is mounted (default `/api`); every URL the service writes starts with it */
  readonly basePath?: string;
  /**
   * Runs the OAuth 2.1 authorization server for third-party clients and agents (off when left
   * out). `publicUrl` is the origin clients reach the host at: the issuer, and with the base path
   * the API's resource indicator. Needs the app served by @hono/node-server.
   */
  readonly oauthServer?: {
    readonly publicUrl: string;
    /**
     * How the server fetches a client's metadata document (a client id that is an https URL):
     * default Node's fetch, refusing addresses of this machine and of private networks
     */
    readonly fetch?: typeof fetch;
  };
  /**
   * The host names the MCP endpoint answers to (lower case), for a host listening on a loopback
   * address, so a page that rebinds its own name to this machine is refused; any name when left
   * out (startHost sets it from HOST and PUBLIC_URL)
   */
  readonly mcpAllowedHosts?: readonly string[];
  /**
   * The request counts the rate limits keep (default: made from `config.rateLimits` on `db`):
   * hosts that share a database share them; give one to flush it or close it yourself
   */
  readonly rateLimits?: RateLimits;
  /** the places each tenant's requests take (default: made from `config.tenantShare`) */
  readonly tenantShare?: TenantShare;
  /**
   * The change streams the app serves (`GET {base}/$changes`, MCP sessions' streams), with the
   * feeds they follow (default: made from `config.changeStream` on `db`); close it before the
   * server drains, or its streams hold the drain until the grace period ends
   */
  readonly changeStreams?: ChangeStreams;
  /**
   * Serves the web app (@bizdata/web's built files) at `/app/` (off when left out). With the
   * OAuth server on, the host registers it as a public client that returns to `/app/`.
   */
  readonly webApp?: WebAppFiles;
}

export function createApp({
  db,
  model,
  keys,
  config,
  logger = hostLogger(config.logLevel),
  basePath: base = "/api",
  oauthServer,
  mcpAllowedHosts,
  webApp,
  rateLimits = new RateLimits(db, config.rateLimits, (err) => logger.warn({ err }, "rate counts not flushed")),
  tenantShare = new TenantShare(config.tenantShare),
  changeStreams = new ChangeStreams(db, config.changeStream, (err) => logger.warn({ err }, "change log not read")),
}: AppOptions) {
  const auth: AuthSettings = config.auth;
  const app = new Hono<{ Variables: AuthVariables }>();
  const service = createODataService({
    db,
    model,
    basePath: base,
    queryLimits: config.queryLimits,
    writeLimits: config.writeLimits,
    changeRetention: config.changeLog.retention,
  });
  const { basePath } = service;
  // first: request ids, the request log line, metrics with each request's statements counted
  const metrics = observeHost(app, db, config, logger, basePath);

  // set before the handler runs, so responses stay on @hono/node-server's fast path (a header
  // added to a finished response forces a slower copy); onError sets it on errors itself
  const versionFor = (maxVersion: string | null | undefined) => odataVersion(maxVersion ?? undefined, "4.01");
  const version = (c: Context) => versionFor(c.req.header("odata-maxversion"));
  app.use("*", async (c, next) => {
    c.header("OData-Version", version(c));
    // no browser may take an answer for another type than the one it says (a JSON text for HTML)
    c.header("X-Content-Type-Options", "nosniff");
    await next();
  });

  /** the answer to an error thrown while serving `method path` for `c`'s request, logged when unexpected */
  const errorAnswer = (err: unknown, c: Context, method: string, path: string): ODataResult => {
    const response = errorResponse(err, model);
    if (response.unexpected) requestLogger(c, logger).error({ err, method, path }, "request failed");
    return errorResult(response);
  };
  app.onError((err, c) => {
    c.header("OData-Version", version(c));
    c.header("X-Content-Type-Options", "nosniff");
    return send(c, errorAnswer(err, c, c.req.method, c.req.path));
  });

  app.notFound((c) => c.json(notFound(`No resource at ${c.req.path}.`).toJSON(), 404));

  app.route("/health", healthRoutes(db, model, logger));
  // ahead of sign-in: a client without a valid token is limited by its address
  app.use(`${basePath}/*`, limitedByAddress(rateLimits));
  app.get("/.well-known/jwks.json", (c) => c.json(keys.jwks));

  app.route(`${basePath}/auth`, authRoutes(db, keys, auth, config.signInThrottle));
  const mcp = mcpPath(basePath);
  const oauth = oauthServer && {
    issuer: oauthServer.publicUrl,
    // what a client may ask a token for (RFC 8707): the API and its MCP endpoint
    resources: [`${oauthServer.publicUrl}${basePath}`, `${oauthServer.publicUrl}${mcp}`] as const,
    prefix: `${basePath}/oauth`,
    accessTokenTtl: auth.accessTokenTtl,
    refreshTokenTtl: auth.refreshTokenTtl,
    ...(oauthServer.fetch && { fetch: oauthServer.fetch }),
    ...(webApp && {
      clients: [
        {
          clientId: WEB_APP_CLIENT_ID,
          name: "bizdata web app",
          redirectUris: [`${oauthServer.publicUrl}${WEB_APP_PATH}/`],
        },
      ],
    }),
  };
  if (oauth !== undefined) {
    if (oauth.issuer === auth.issuer) throw new Error(`AUTH_ISSUER must differ from PUBLIC_URL (${oauth.issuer}).`);
    mountOAuthServer(app, {
      db,
      keys,
      settings: oauth,
      logger,
      throttle: config.signInThrottle,
      registration: config.oauthRegistration,
    });
  }
  // what the host's own tokens may do now: their grant, their user's roles (read per request, kept briefly)
  const standing = grantStanding(db, { cacheMs: config.auth.grantCacheMs });
  // the authorization servers whose tokens the API takes: this host's own when on, then OAUTH_ISSUERS
  const issuers = [...(oauth ? [ownIssuer(keys, oauth, oauth.resources, standing)] : []), ...config.oauthIssuers];
  // public like sign-in: read before there is a token
  app.route(
    "/",
    openApiRoutes({
      model,
      basePath,
      maxPageSize: config.queryLimits.maxPageSize,
      oauthIssuers: [
        ...(oauth
          ? [
              {
                issuer: oauth.issuer,
                authorizationEndpoint: `${oauth.issuer}${oauth.prefix}/authorize`,
                tokenEndpoint: `${oauth.issuer}${oauth.prefix}/token`,
              },
            ]
          : []),
        ...config.oauthIssuers,
      ],
    }),
  );
  // RFC 9728: where a 401 sends a client (an agent connector) to find out how to get a token
  const metadataOf = (url: string) => {
    const { origin, pathname } = new URL(url);
    return `${origin}${WELL_KNOWN}${pathname === mcp ? mcp : ""}`;
  };
  app.get(WELL_KNOWN, (c) =>
    c.json(resourceMetadata(oauth?.resources[0] ?? `${new URL(c.req.url).origin}${basePath}`, issuers, "bizdata API")),
  );
  if (webApp)
    app.route(
      "/",
      webAppRoutes({
        files: webApp,
        config: { service: basePath, ...(oauth && { clientId: WEB_APP_CLIENT_ID }) },
        connectOrigins: issuerOriginsOf(issuers),
      }),
    );
  const userRoles = async (tenantId: string, username: string) => (await findUser(db, tenantId, username))?.roles;
  const thirdParty = thirdPartyVerifier(issuers, userRoles);
  app.use(
    `${basePath}/*`,
    authenticate(keys, auth, { resourceMetadata: metadataOf, standing, ...(thirdParty && { thirdParty }) }),
  );
  app.use(`${basePath}/*`, limitedByToken(rateLimits));
  app.get(`${basePath}/auth/me`, callerRights(model, config.roles));
  const shared = tenantShare.settings.perTenant > 0;
  // an MCP call's tools take a place for each of their calls of the services (mcpRoutes' `place`),
  // a change stream for each of its reads: held for the stream, a place would be held for hours
  const changes = `${basePath}${CHANGES_PATH}`;
  if (shared)
    app.use(
      `${basePath}/*`,
      sharedByTenants(tenantShare, (c) => c.req.path === mcp || c.req.path === changes),
    );
  const place = shared
    ? { place: <T>(tenantId: string, work: () => Promise<T>) => tenantShare.run(tenantId, work) }
    : {};
  const workflows = createWorkflowService({
    db,
    model,
    planner: service.planner,
    basePath,
    ttlSeconds: config.workflowTtl,
    writeLimits: config.writeLimits,
    scopes: new WarmScopes(config.warmWorkflowScopes === undefined ? {} : { enabled: config.warmWorkflowScopes }),
    ...(metrics && { observe: metrics.workflows }),
  });
  // before the entity routes, whose `/*` would take its path
  app.route(
    "/",
    mcpRoutes({
      db,
      model,
      roles: config.roles,
      rowLimit: config.mcpRowLimit,
      logger,
      service,
      workflows,
      ...place,
      changeStreams,
      bodyLimits: config.bodyLimits,
      oauthIssuers: issuers,
      ...(oauth && { resource: oauth.resources[1] }),
      ...(mcpAllowedHosts && { allowedHosts: mcpAllowedHosts }),
    }),
  );
  app.route(
    `${basePath}/${WEBHOOKS_SEGMENT}`,
    webhookRoutes({
      db,
      model,
      roles: config.roles,
      settings: config.webhooks,
      bodyLimits: config.bodyLimits,
      maxPageSize: config.queryLimits.maxPageSize,
      basePath,
    }),
  );
  app.route(basePath, workflowRoutes(workflows, config.roles));
  app.route(
    basePath,
    changeStreamRoutes({
      db,
      model,
      roles: config.roles,
      streams: changeStreams,
      retention: config.changeLog.retention,
      enabled: config.changeLog.enabled,
      logger,
      ...place,
    }),
  );
  app.post(`${basePath}/$batch`, async (c) => {
    const { tenantId } = c.get("principal");
    const result = await runBatch(c.req.raw, {
      model,
      basePath,
      bodyLimits: config.bodyLimits,
      batchLimits: config.batchLimits,
      tenantId,
      features: () => tenantFeaturesOf(db, tenantId),
      changeTracking: db.store.changeLog,
      // a part as a call of the service, as the entity routes make it: one with workflow headers
      // as a step of that workflow, in a unit of its own (a changeset's cannot hold it)
      serve: (request, headers, unit) => {
        const step = stepHeadersOf((name) => headers.get(name));
        const call =
          step === undefined
            ? callService(service, config.roles, c, request, unit)
            : unit !== undefined
              ? Promise.reject(
                  new ServiceError(
                    "NotSupported",
                    "A workflow step cannot be part of a changeset: send it outside the atomicity group.",
                  ),
                )
              : workflows
                  .step(workflowCallerOf(config.roles, c), step, (stepUnit) =>
                    callService(service, config.roles, c, request, stepUnit),
                  )
                  .then(({ result, nextIndex }) => ({
                    ...result,
                    headers: { ...result.headers, "Workflow-Next-Index": String(nextIndex) },
                  }));
        return call
          .catch((err: unknown) => errorAnswer(err, c, request.method, `${basePath}/${request.path}`))
          .then((result) => ({
            ...result,
            headers: { ...result.headers, "OData-Version": versionFor(headers.get("odata-maxversion")) },
          }));
      },
      changeset: (prefetch, parts) =>
        inChangeset(requestDatabase(c).db ?? db, tenantId, prefetch, parts, changeSource(model, authorOf(c))),
    });
    return send(c, result);
  });
  app.route("/", metadataRoutes(db, model, basePath));
  app.route(
    basePath,
    entityRoutes(service, {
      bodyLimits: config.bodyLimits,
      roles: config.roles,
      step: workflowStep(workflows, config.roles),
    }),
  );
  return app;
}

export type App = ReturnType<typeof createApp>;

/** the origins of the issuers' token endpoints, which a browser app signed in by them calls */
const issuerOriginsOf = (issuers: readonly { readonly issuer: string; readonly tokenEndpoint?: string }[]) => [
  ...new Set(
    issuers.flatMap(({ issuer, tokenEndpoint }) =>
      [issuer, tokenEndpoint].flatMap((url) => (url !== undefined && URL.canParse(url) ? [new URL(url).origin] : [])),
    ),
  ),
];
