/**
 * Host configuration from the environment (api-conventions: Addresses and start-up), checked
 * once at start so a typo fails loudly instead of running with a default.
 */
import {
  defaultPostgresOptions,
  defaultReplicaSettings,
  defaultWriteLimits,
  type PostgresOptions,
  type ReplicaSettings,
  type WriteLimits,
} from "@bizdata/core";
import {
  type BatchLimits,
  type BodyLimits,
  defaultBatchLimits,
  defaultBodyLimits,
  defaultQueryLimits,
  type QueryLimits,
} from "@bizdata/odata";
import type { JWK } from "jose";
import { defaultRoles, type Roles } from "./auth/permissions.js";
import { defaultThrottle, type ThrottleSettings } from "./auth/sign-in-throttle.js";
import type { TrustedIssuer } from "./auth/trusted-issuers.js";
import type { RateLimitSettings } from "./limits/rate-limits.js";
import { placesPerTenant, type TenantShareSettings } from "./limits/tenant-share.js";
import { defaultRegistration, type RegistrationSettings } from "./oauth/registration-limit.js";
import type { MetricsSettings } from "./observability/observe-host.js";
import { type ProxySettings, parseProxyHeader, parseTrustedProxies } from "./observability/trusted-proxies.js";
import { defaultWebhookSettings, type WebhookSettings } from "./webhooks/webhook-settings.js";

export interface HostConfig {
  readonly host: string;
  readonly port: number;
  /** `postgres://…`, `memory://`, or undefined for PGlite under `dataDir` */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL pool size and timeouts in milliseconds (DATABASE_POOL_SIZE, DATABASE_…_TIMEOUT_MS) */
  readonly postgres: Required<PostgresOptions>;
  /**
   * DATABASE_READ_URL (none by default), DATABASE_READ_MAX_LAG_MS, DATABASE_READ_CHECK_INTERVAL_MS:
   * streaming replicas for one-statement tenant reads, skipped while they lag beyond the bound
   */
  readonly readReplicas: { readonly urls: readonly string[] } & ReplicaSettings;
  readonly auth: {
    readonly issuer: string;
    readonly audience: string;
    readonly accessTokenTtl: number;
    readonly refreshTokenTtl: number;
    /** GRANT_CACHE_MS: how long a host keeps what it read of a token's grant and user (token-grants.ts) */
    readonly grantCacheMs: number;
  };
  /** MAX_PAGE_SIZE, MAX_SEARCH_TERMS, MAX_ANSWER_BYTES: what one read may ask for and answer */
  readonly queryLimits: QueryLimits;
  /** MAX_BATCH_ANSWER_BYTES: bytes of a `$batch`'s answers together */
  readonly batchLimits: BatchLimits;
  readonly bodyLimits: BodyLimits;
  /** MAX_COLLECTION_ITEMS: items of an owned collection that declares no `maxItems` (default 1000) */
  readonly writeLimits: WriteLimits;
  readonly logLevel: string;
  /** seconds an abandoned workflow lives after its last request (api-conventions: 24 hours) */
  readonly workflowTtl: number;
  /** WorkflowOptions.WarmWorkflowScopes (spec 8); undefined: on unless NODE_ENV=development */
  readonly warmWorkflowScopes: boolean | undefined;
  /** third-party authorization servers whose access tokens are accepted (OAUTH_ISSUERS, JSON array) */
  readonly oauthIssuers: readonly TrustedIssuer[];
  /** roles and their grants (ROLES, JSON object; default admin and reader) */
  readonly roles: Roles;
  /** AUTH_SIGNING_KEY: a private ES256 JWK to sign with instead of a generated one */
  readonly signingKey: JWK | undefined;
  /** SHUTDOWN_GRACE_MS: milliseconds requests in flight get to finish on SIGTERM/SIGINT */
  readonly shutdownGrace: number;
  /** METRICS (on|off, default on), METRICS_TOKEN: Prometheus text at `/metrics` */
  readonly metrics: MetricsSettings;
  /** TRUSTED_PROXIES, PROXY_HEADER: whose forwarding header names the client (sign-in throttling, logs) */
  readonly proxies: ProxySettings;
  /**
   * OAUTH_SERVER (on|off; unset: the application's config decides), PUBLIC_URL: the origin
   * clients reach the host at, the OAuth server's issuer (default: the address it listens on)
   */
  readonly oauthServer: { readonly enabled: boolean | undefined; readonly publicUrl: string | undefined };
  /** WEB_APP (on|off; unset: the application's config decides): the web app at /app/ */
  readonly webApp: { readonly enabled: boolean | undefined };
  /** MCP_ROW_LIMIT: most rows an MCP tool returns (below MAX_PAGE_SIZE: one more is read to tell there are more) */
  readonly mcpRowLimit: number;
  /** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS: how long a client may take to send its headers, its whole request */
  readonly http: HttpTimeouts;
  /** SIGNIN_THROTTLE_…: when failed sign-ins block a pair (account, address), an address, an account */
  readonly signInThrottle: ThrottleSettings;
  /** OAUTH_REGISTRATIONS_PER_HOUR, OAUTH_REGISTRATION_TOKEN: who may register OAuth clients, how often */
  readonly oauthRegistration: RegistrationSettings;
  /**
   * DATABASE_TENANT_SHARE (of DATABASE_POOL_SIZE, default 0.5), DATABASE_TENANT_QUEUE (256),
   * DATABASE_TENANT_WAIT_MS (5 s): how many requests of one tenant are served at once, and how
   * many wait, for how long, before the next gets 429 TenantBusy
   */
  readonly tenantShare: TenantShareSettings;
  /** RATE_LIMIT_PER_TOKEN (6,000), RATE_LIMIT_PER_ADDRESS (12,000): requests a minute, 0 for none */
  readonly rateLimits: RateLimitSettings;
  /** CHANGE_LOG, CHANGE_LOG_RETENTION, CHANGE_LOG_PRUNE_INTERVAL: the change log and how long it keeps changes */
  readonly changeLog: ChangeLogSettings;
  /** WEBHOOKS, WEBHOOK_…: registering webhooks and delivering their events */
  readonly webhooks: WebhookSettings;
  /** CHANGE_STREAM_…: how `GET /api/$changes` follows the log, and what it lets a client hold */
  readonly changeStream: ChangeStreamSettings;
}

export interface ChangeStreamSettings {
  /** CHANGE_STREAM_POLL_INTERVAL: milliseconds between a host's looks at a tenant's log while it has streams (default 500) */
  readonly pollMs: number;
  /** CHANGE_STREAM_HEARTBEAT: seconds between heartbeats (default 15), here in milliseconds */
  readonly heartbeatMs: number;
  /** CHANGE_STREAM_MAX_BUFFER: bytes of events a client may leave unread before its stream is closed (default 1 MiB) */
  readonly maxBufferBytes: number;
  /** CHANGE_STREAM_PER_USER: streams one user may have open on a host at once (default 8) */
  readonly perUser: number;
  /** CHANGE_STREAM_PER_TENANT: streams one tenant may have open on a host at once (default 100) */
  readonly perTenant: number;
}

export interface ChangeLogSettings {
  /** CHANGE_LOG (on|off, default on): whether writes append their changes to the change log */
  readonly enabled: boolean;
  /** CHANGE_LOG_RETENTION: seconds a change is kept (default 30 days); a delta token older than it answers 410 */
  readonly retention: number;
  /** CHANGE_LOG_PRUNE_INTERVAL: seconds between a host's prunes of older changes (default 10 minutes) */
  readonly pruneInterval: number;
}

/**
 * How long the server waits for a client. Node's defaults (60 s for the headers, 300 s for the
 * request, checked every 30 s) let a slow-header client hold a connection for about 84 s; a
 * client that has not sent its headers in 10 s is not a browser or an OData tool on any network
 * worth serving, and a 10 MiB body (the body limit) uploads in 60 s at 1.4 Mbit/s.
 */
export interface HttpTimeouts {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
}

export const defaultHttpTimeouts: HttpTimeouts = { headersTimeout: 10_000, requestTimeout: 60_000 };

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name}=${raw} is not an integer between ${min} and ${max}.`);
  return n;
}

/** a share between 0 and 1 */
function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error(`${name}=${raw} is not a number between 0 and 1.`);
  return n;
}

/** one of the named words */
function oneOf<const W extends string>(env: NodeJS.ProcessEnv, name: string, words: readonly W[], fallback: W): W {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(words as readonly string[]).includes(raw)) throw new Error(`${name}=${raw} is not one of ${words.join(", ")}.`);
  return raw as W;
}

function issuers(raw: string | undefined): TrustedIssuer[] {
  if (raw === undefined || raw.trim() === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error("OAUTH_ISSUERS is not JSON: give an array of {issuer, audience, jwksUri | jwks, …}.");
  }
  if (!Array.isArray(parsed)) throw new Error("OAUTH_ISSUERS must be a JSON array.");
  for (const [i, item] of parsed.entries()) {
    const ok =
      item &&
      typeof item.issuer === "string" &&
      typeof item.audience === "string" &&
      (typeof item.jwksUri === "string" || typeof item.jwks === "object");
    if (!ok) throw new Error(`OAUTH_ISSUERS[${i}] needs issuer, audience and jwksUri or jwks.`);
    for (const endpoint of ["authorizationEndpoint", "tokenEndpoint"]) {
      const value = item[endpoint];
      if (value !== undefined && (typeof value !== "string" || !URL.canParse(value)))
        throw new Error(`OAUTH_ISSUERS[${i}].${endpoint} must be an absolute URL.`);
    }
  }
  return parsed as TrustedIssuer[];
}

function jwk(raw: string): JWK {
  try {
    return JSON.parse(raw) as JWK;
  } catch {
    throw new Error("AUTH_SIGNING_KEY is not JSON: give a private ES256 JWK with a kid.");
  }
}

function roles(raw: string | undefined): Roles {
  if (raw === undefined || raw.trim() === "") return defaultRoles;
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    return parsed as Roles;
  } catch {
    throw new Error('ROLES must be a JSON object like {"clerk":{"read":"*","create":["SalesOrder"],"call":["read"]}}.');
  }
}

/**
 * An on/off setting. Every switch takes the same words, so nobody has to remember which one
 * wants `true` and which `on`: on, true, 1 and off, false, 0, in any case.
 */
function onOff(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const word = raw.trim().toLowerCase();
  if (word === "on" || word === "true" || word === "1") return true;
  if (word === "off" || word === "false" || word === "0") return false;
  throw new Error(`${name}=${raw} is neither on nor off (true/false and 1/0 are taken too).`);
}

/** an http(s) origin: the OAuth metadata lives at its root (RFC 8414), so it has no path */
function publicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.pathname !== "/" || url.search || url.hash) {
    throw new Error(
      `PUBLIC_URL=${raw} is not an http(s) origin like https://data.example.com (no path, query or fragment).`,
    );
  }
  return url.origin;
}

function postgresOptions(env: NodeJS.ProcessEnv): Required<PostgresOptions> {
  const d = defaultPostgresOptions;
  const ms = (name: string, fallback: number, min: number) => integer(env, name, fallback, min, 24 * 3600_000);
  return {
    max: integer(env, "DATABASE_POOL_SIZE", d.max, 1, 1000),
    connectTimeout: ms("DATABASE_CONNECT_TIMEOUT_MS", d.connectTimeout, 100),
    poolTimeout: ms("DATABASE_POOL_TIMEOUT_MS", d.poolTimeout, 100),
    statementTimeout: ms("DATABASE_STATEMENT_TIMEOUT_MS", d.statementTimeout, 0),
    lockTimeout: ms("DATABASE_LOCK_TIMEOUT_MS", d.lockTimeout, 0),
    idleInTransactionTimeout: ms("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", d.idleInTransactionTimeout, 0),
    pooler: oneOf(env, "DATABASE_POOLER", ["auto", "transaction", "session"], d.pooler),
  };
}

/**
 * DATABASE_READ_URL: one or more postgres:// URLs, separated by commas or spaces. A URL's own
 * commas (several hosts: `postgres://a,b/db`) stay in it: a URL starts only at `postgres://`.
 * Whether each is one, and DATABASE_URL one too, openDatabase checks as it does DATABASE_URL.
 */
function readReplicas(env: NodeJS.ProcessEnv): HostConfig["readReplicas"] {
  const urls = (env.DATABASE_READ_URL ?? "")
    .split(/[\s,]+(?=postgres(?:ql)?:\/\/)/)
    .map((url) => url.trim().replace(/,$/, ""))
    .filter((url) => url !== "");
  const d = defaultReplicaSettings;
  const checkInterval = integer(env, "DATABASE_READ_CHECK_INTERVAL_MS", d.checkInterval, 10, 60_000);
  const maxLag = integer(env, "DATABASE_READ_MAX_LAG_MS", d.maxLag, 20, 3600_000);
  // a replica is known fresh only as of a check: a bound below two checks would skip it between them
  if (maxLag < 2 * checkInterval)
    throw new Error(
      `DATABASE_READ_MAX_LAG_MS=${maxLag} is below twice DATABASE_READ_CHECK_INTERVAL_MS=${checkInterval}: every replica would count as lagging between two checks.`,
    );
  return { urls, maxLag, checkInterval };
}

/** a secret callers send as a bearer token: long enough not to be guessed, one word */
function secretToken(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < 16 || /\s/.test(raw)) throw new Error(`${name} must be at least 16 characters without spaces.`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): HostConfig {
  const maxPageSize = integer(env, "MAX_PAGE_SIZE", defaultQueryLimits.maxPageSize, 1, 100_000);
  const postgres = postgresOptions(env);
  return {
    host: env.HOST || "127.0.0.1",
    port: integer(env, "PORT", 3000, 0, 65535),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "./.data",
    postgres,
    readReplicas: readReplicas(env),
    auth: {
      issuer: env.AUTH_ISSUER || "bizdata",
      audience: env.AUTH_AUDIENCE || "bizdata-api",
      accessTokenTtl: integer(env, "ACCESS_TOKEN_TTL", 15 * 60, 30, 24 * 3600),
      refreshTokenTtl: integer(env, "REFRESH_TOKEN_TTL", 30 * 24 * 3600, 60, 365 * 24 * 3600),
      grantCacheMs: integer(env, "GRANT_CACHE_MS", 5000, 0, 60_000),
    },
    queryLimits: {
      ...defaultQueryLimits,
      maxPageSize,
      maxSearchTerms: integer(env, "MAX_SEARCH_TERMS", defaultQueryLimits.maxSearchTerms, 1, 1000),
      maxAnswerBytes: integer(env, "MAX_ANSWER_BYTES", defaultQueryLimits.maxAnswerBytes, 1024, 1024 ** 3),
    },
    batchLimits: {
      ...defaultBatchLimits,
      maxAnswerBytes: integer(env, "MAX_BATCH_ANSWER_BYTES", defaultBatchLimits.maxAnswerBytes, 1024, 1024 ** 3),
    },
    writeLimits: {
      maxCollectionItems: integer(env, "MAX_COLLECTION_ITEMS", defaultWriteLimits.maxCollectionItems, 1, 1_000_000),
    },
    bodyLimits: {
      ...defaultBodyLimits,
      maxBytes: integer(env, "MAX_BODY_BYTES", defaultBodyLimits.maxBytes, 1024, 1024 ** 3),
    },
    logLevel: env.LOG_LEVEL || "info",
    workflowTtl: integer(env, "WORKFLOW_TTL", 24 * 3600, 10, 365 * 24 * 3600),
    warmWorkflowScopes: onOff(env, "WORKFLOW_WARM_SCOPES"),
    oauthIssuers: issuers(env.OAUTH_ISSUERS),
    roles: roles(env.ROLES),
    signingKey: env.AUTH_SIGNING_KEY ? jwk(env.AUTH_SIGNING_KEY) : undefined,
    shutdownGrace: integer(env, "SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
    metrics: { enabled: onOff(env, "METRICS") ?? true, token: secretToken(env, "METRICS_TOKEN") },
    proxies: { trusted: parseTrustedProxies(env.TRUSTED_PROXIES), header: parseProxyHeader(env.PROXY_HEADER) },
    oauthServer: { enabled: onOff(env, "OAUTH_SERVER"), publicUrl: publicUrl(env.PUBLIC_URL) },
    webApp: { enabled: onOff(env, "WEB_APP") },
    mcpRowLimit: integer(
      env,
      "MCP_ROW_LIMIT",
      Math.max(1, Math.min(100, maxPageSize - 1)),
      1,
      Math.max(1, maxPageSize - 1),
    ),
    http: httpTimeouts(env),
    signInThrottle: signInThrottle(env),
    oauthRegistration: {
      perHour: integer(env, "OAUTH_REGISTRATIONS_PER_HOUR", defaultRegistration.perHour, 1, 100_000),
      token: secretToken(env, "OAUTH_REGISTRATION_TOKEN"),
    },
    tenantShare: tenantShare(env, postgres.max),
    rateLimits: {
      perToken: integer(env, "RATE_LIMIT_PER_TOKEN", 6000, 0, 10_000_000),
      perAddress: integer(env, "RATE_LIMIT_PER_ADDRESS", 12_000, 0, 10_000_000),
    },
    changeLog: {
      enabled: onOff(env, "CHANGE_LOG") ?? true,
      retention: integer(env, "CHANGE_LOG_RETENTION", 30 * 24 * 3600, 60, 10 * 365 * 24 * 3600),
      pruneInterval: integer(env, "CHANGE_LOG_PRUNE_INTERVAL", 600, 1, 7 * 24 * 3600),
    },
    changeStream: {
      pollMs: integer(env, "CHANGE_STREAM_POLL_INTERVAL", 500, 10, 60_000),
      heartbeatMs: integer(env, "CHANGE_STREAM_HEARTBEAT", 15, 1, 3600) * 1000,
      maxBufferBytes: integer(env, "CHANGE_STREAM_MAX_BUFFER", 1024 * 1024, 4096, 1024 ** 3),
      perUser: integer(env, "CHANGE_STREAM_PER_USER", 8, 1, 10_000),
      perTenant: integer(env, "CHANGE_STREAM_PER_TENANT", 100, 1, 100_000),
    },
    webhooks: webhookSettings(env),
  };
}

function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const d = defaultWebhookSettings;
  const hour = 3600_000;
  const baseMs = integer(env, "WEBHOOK_BACKOFF_BASE_MS", d.backoff.baseMs, 1, 24 * hour);
  const maxMs = integer(env, "WEBHOOK_BACKOFF_MAX_MS", d.backoff.maxMs, 1, 7 * 24 * hour);
  if (maxMs < baseMs)
    throw new Error(
      `WEBHOOK_BACKOFF_MAX_MS=${maxMs} is below WEBHOOK_BACKOFF_BASE_MS=${baseMs}: no wait could be that long.`,
    );
  return {
    enabled: onOff(env, "WEBHOOKS") ?? d.enabled,
    pollIntervalMs: integer(env, "WEBHOOK_POLL_INTERVAL_MS", d.pollIntervalMs, 10, 10 * 60_000),
    timeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", d.timeoutMs, 100, 10 * 60_000),
    maxAttempts: integer(env, "WEBHOOK_MAX_ATTEMPTS", d.maxAttempts, 1, 100),
    backoff: { baseMs, maxMs },
    concurrency: integer(env, "WEBHOOK_CONCURRENCY", d.concurrency, 1, 1000),
    allowInsecure: onOff(env, "WEBHOOK_ALLOW_INSECURE") ?? d.allowInsecure,
    perTenant: integer(env, "WEBHOOKS_PER_TENANT", d.perTenant, 1, 10_000),
  };
}

/**
 * Half the pool by default: however busy one tenant is, the other half stays free for the
 * others. On PGlite, whose one connection takes transactions in turn, the pool size counts the
 * host's concurrency slots all the same (limits/tenant-share.ts).
 */
function tenantShare(env: NodeJS.ProcessEnv, poolSize: number): TenantShareSettings {
  return {
    perTenant: placesPerTenant(poolSize, fraction(env, "DATABASE_TENANT_SHARE", 0.5)),
    queue: integer(env, "DATABASE_TENANT_QUEUE", 256, 0, 100_000),
    waitMs: integer(env, "DATABASE_TENANT_WAIT_MS", 5000, 1, 600_000),
  };
}

function signInThrottle(env: NodeJS.ProcessEnv): ThrottleSettings {
  const d = defaultThrottle;
  const day = 24 * 3600;
  const failures = (name: string, fallback: number) => integer(env, name, fallback, 1, 1000);
  const seconds = (name: string, fallback: number) => integer(env, name, fallback, 1, 7 * day);
  const maxDelay = seconds("SIGNIN_THROTTLE_MAX_DELAY_S", d.pair.maxDelay);
  const settings: ThrottleSettings = {
    pair: { failures: failures("SIGNIN_THROTTLE_PAIR_FAILURES", d.pair.failures), maxDelay },
    address: { failures: failures("SIGNIN_THROTTLE_ADDRESS_FAILURES", d.address.failures), maxDelay },
    account: {
      failures: failures("SIGNIN_THROTTLE_ACCOUNT_FAILURES", d.account.failures),
      maxDelay: seconds("SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S", d.account.maxDelay),
    },
    firstDelay: seconds("SIGNIN_THROTTLE_FIRST_DELAY_S", d.firstDelay),
    resetAfter: seconds("SIGNIN_THROTTLE_RESET_S", d.resetAfter),
  };
  const caps = [
    ["SIGNIN_THROTTLE_MAX_DELAY_S", maxDelay],
    ["SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S", settings.account.maxDelay],
  ] as const;
  for (const [name, cap] of caps) {
    // a count forgotten sooner than the longest block ends would start again from nothing after
    // every block, and the delays would never grow to it
    if (settings.resetAfter < cap)
      throw new Error(
        `SIGNIN_THROTTLE_RESET_S=${settings.resetAfter} is below ${name}=${cap}: the count would be forgotten before the longest block ends.`,
      );
  }
  return settings;
}

function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const headersTimeout = integer(env, "HTTP_HEADERS_TIMEOUT_MS", defaultHttpTimeouts.headersTimeout, 1000, 600_000);
  const requestTimeout = integer(env, "HTTP_REQUEST_TIMEOUT_MS", defaultHttpTimeouts.requestTimeout, 1000, 3600_000);
  // Node refuses a request timeout below the headers timeout at start: say which setting to fix
  if (requestTimeout < headersTimeout)
    throw new Error(
      `HTTP_REQUEST_TIMEOUT_MS=${requestTimeout} is below HTTP_HEADERS_TIMEOUT_MS=${headersTimeout}: the request includes its headers.`,
    );
  return { headersTimeout, requestTimeout };
}
