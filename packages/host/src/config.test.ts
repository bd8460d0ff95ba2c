import { defaultPostgresOptions } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("the database settings of the host configuration", () => {
  it("defaults to bounded waits", () => {
    expect(loadConfig({}).postgres).toEqual(defaultPostgresOptions);
    expect(defaultPostgresOptions).toEqual({
      max: 10,
      connectTimeout: 5000,
      poolTimeout: 5000,
      statementTimeout: 30000,
      lockTimeout: 10000,
      idleInTransactionTimeout: 60000,
      pooler: "auto",
    });
  });

  it("reads each from its variable", () => {
    const config = loadConfig({
      DATABASE_POOL_SIZE: "4",
      DATABASE_CONNECT_TIMEOUT_MS: "2000",
      DATABASE_POOL_TIMEOUT_MS: "1500",
      DATABASE_STATEMENT_TIMEOUT_MS: "0",
      DATABASE_LOCK_TIMEOUT_MS: "250",
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "9000",
      DATABASE_POOLER: "transaction",
    });
    expect(config.postgres).toEqual({
      max: 4,
      connectTimeout: 2000,
      poolTimeout: 1500,
      statementTimeout: 0,
      lockTimeout: 250,
      idleInTransactionTimeout: 9000,
      pooler: "transaction",
    });
  });

  it("refuses a value out of range, naming the variable", () => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: "0" })).toThrow("DATABASE_POOL_SIZE=0");
    expect(() => loadConfig({ DATABASE_POOLER: "pgbouncer" })).toThrow("DATABASE_POOLER=pgbouncer");
    expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: "5s" })).toThrow("DATABASE_CONNECT_TIMEOUT_MS=5s");
    expect(() => loadConfig({ DATABASE_POOL_TIMEOUT_MS: "0" })).toThrow("DATABASE_POOL_TIMEOUT_MS=0");
    expect(() => loadConfig({ DATABASE_LOCK_TIMEOUT_MS: "-1" })).toThrow("DATABASE_LOCK_TIMEOUT_MS=-1");
  });
});

describe("the read replicas", () => {
  it("are none by default, checked every second and skipped 5 s behind", () => {
    expect(loadConfig({}).readReplicas).toEqual({ urls: [], maxLag: 5000, checkInterval: 1000 });
  });

  it("are one or more URLs, split by commas or spaces but not within a URL of several hosts", () => {
    const urls = (value: string) => loadConfig({ DATABASE_READ_URL: value }).readReplicas.urls;
    expect(urls("postgres://r1/app")).toEqual(["postgres://r1/app"]);
    expect(urls("postgres://u:p@r1:5432/app, postgresql://r2/app,postgres://r3/app")).toEqual([
      "postgres://u:p@r1:5432/app",
      "postgresql://r2/app",
      "postgres://r3/app",
    ]);
    expect(urls("postgres://r1:5432,r2:5432/app?target_session_attrs=standby postgres://r3/app,")).toEqual([
      "postgres://r1:5432,r2:5432/app?target_session_attrs=standby",
      "postgres://r3/app",
    ]);
  });

  it("take the lag bound and the check interval, the bound at least two checks", () => {
    const env = { DATABASE_READ_MAX_LAG_MS: "2000", DATABASE_READ_CHECK_INTERVAL_MS: "250" };
    expect(loadConfig(env).readReplicas).toMatchObject({ maxLag: 2000, checkInterval: 250 });
    expect(() => loadConfig({ ...env, DATABASE_READ_MAX_LAG_MS: "400" })).toThrow(
      "DATABASE_READ_MAX_LAG_MS=400 is below twice DATABASE_READ_CHECK_INTERVAL_MS=250",
    );
    expect(() => loadConfig({ DATABASE_READ_CHECK_INTERVAL_MS: "5" })).toThrow("DATABASE_READ_CHECK_INTERVAL_MS=5");
  });
});

describe("the tenant share and the rate limits", () => {
  it("default to half the pool per tenant, 256 waiting for 5 s, 6,000 requests a minute per token and 12,000 per address", () => {
    const config = loadConfig({});
    expect(config.tenantShare).toEqual({ perTenant: 5, queue: 256, waitMs: 5000 });
    expect(config.rateLimits).toEqual({ perToken: 6000, perAddress: 12_000 });
  });

  it("count a tenant's places from DATABASE_POOL_SIZE and DATABASE_TENANT_SHARE, rounded down, at least one", () => {
    const places = (env: Record<string, string>) => loadConfig(env).tenantShare.perTenant;
    expect(places({ DATABASE_POOL_SIZE: "20", DATABASE_TENANT_SHARE: "0.25" })).toBe(5);
    expect(places({ DATABASE_POOL_SIZE: "7", DATABASE_TENANT_SHARE: "0.5" })).toBe(3);
    expect(places({ DATABASE_POOL_SIZE: "1" })).toBe(1);
    expect(places({ DATABASE_TENANT_SHARE: "0.01" })).toBe(1);
    expect(places({ DATABASE_TENANT_SHARE: "1" })).toBe(10);
    // 0: no share
    expect(places({ DATABASE_TENANT_SHARE: "0" })).toBe(0);
  });

  it("read the queue, the wait and the limits from their variables; 0 turns a rate limit off", () => {
    const config = loadConfig({
      DATABASE_TENANT_QUEUE: "0",
      DATABASE_TENANT_WAIT_MS: "250",
      RATE_LIMIT_PER_TOKEN: "0",
      RATE_LIMIT_PER_ADDRESS: "100",
    });
    expect(config.tenantShare).toEqual({ perTenant: 5, queue: 0, waitMs: 250 });
    expect(config.rateLimits).toEqual({ perToken: 0, perAddress: 100 });
  });

  it("refuse a value out of range, naming the variable", () => {
    expect(() => loadConfig({ DATABASE_TENANT_SHARE: "1.5" })).toThrow(
      "DATABASE_TENANT_SHARE=1.5 is not a number between 0 and 1.",
    );
    expect(() => loadConfig({ DATABASE_TENANT_SHARE: "half" })).toThrow("DATABASE_TENANT_SHARE=half");
    expect(() => loadConfig({ DATABASE_TENANT_SHARE: "-0.1" })).toThrow("DATABASE_TENANT_SHARE=-0.1");
    expect(() => loadConfig({ DATABASE_TENANT_QUEUE: "-1" })).toThrow("DATABASE_TENANT_QUEUE=-1");
    expect(() => loadConfig({ DATABASE_TENANT_WAIT_MS: "0" })).toThrow("DATABASE_TENANT_WAIT_MS=0");
    expect(() => loadConfig({ RATE_LIMIT_PER_TOKEN: "1.5" })).toThrow("RATE_LIMIT_PER_TOKEN=1.5");
    expect(() => loadConfig({ RATE_LIMIT_PER_ADDRESS: "-5" })).toThrow("RATE_LIMIT_PER_ADDRESS=-5");
  });
});

describe("the shutdown grace period", () => {
  it("is 10 s unless SHUTDOWN_GRACE_MS says otherwise", () => {
    expect(loadConfig({}).shutdownGrace).toBe(10_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: "0" }).shutdownGrace).toBe(0);
    expect(() => loadConfig({ SHUTDOWN_GRACE_MS: "forever" })).toThrow("SHUTDOWN_GRACE_MS=forever");
  });
});

describe("OAUTH_ISSUERS endpoints", () => {
  const issuer = { issuer: "https://i.example", audience: "a", jwksUri: "https://i.example/jwks" };
  it.each([
    [{ authorizationEndpoint: "/authorize" }, "OAUTH_ISSUERS[0].authorizationEndpoint must be an absolute URL."],
    [{ tokenEndpoint: 42 }, "OAUTH_ISSUERS[0].tokenEndpoint must be an absolute URL."],
  ])("refuses %j, naming the entry and the field", (endpoints, message) => {
    expect(() => loadConfig({ OAUTH_ISSUERS: JSON.stringify([{ ...issuer, ...endpoints }]) })).toThrow(message);
  });

  it("keeps valid endpoints", () => {
    const endpoints = { authorizationEndpoint: "https://i.example/a", tokenEndpoint: "https://i.example/t" };
    expect(loadConfig({ OAUTH_ISSUERS: JSON.stringify([{ ...issuer, ...endpoints }]) }).oauthIssuers).toEqual([
      { ...issuer, ...endpoints },
    ]);
  });
});

describe("the OAuth server settings", () => {
  it("leave the choice to the application unless OAUTH_SERVER is on or off", () => {
    expect(loadConfig({}).oauthServer).toEqual({ enabled: undefined, publicUrl: undefined });
    expect(loadConfig({ OAUTH_SERVER: "on" }).oauthServer.enabled).toBe(true);
    expect(loadConfig({ OAUTH_SERVER: "off" }).oauthServer.enabled).toBe(false);
    expect(() => loadConfig({ OAUTH_SERVER: "yes" })).toThrow(
      "OAUTH_SERVER=yes is neither on nor off (true/false and 1/0 are taken too).",
    );
  });
});

describe("on/off settings", () => {
  const switches = {
    METRICS: (env: NodeJS.ProcessEnv) => loadConfig(env).metrics.enabled,
    OAUTH_SERVER: (env: NodeJS.ProcessEnv) => loadConfig(env).oauthServer.enabled,
    WORKFLOW_WARM_SCOPES: (env: NodeJS.ProcessEnv) => loadConfig(env).warmWorkflowScopes,
  };

  // every switch takes the same words: a METRICS=off that failed while OAUTH_SERVER=off worked was a trap
  it.each(Object.keys(switches))("%s takes on/off, true/false and 1/0 in any case", (name) => {
    const read = switches[name as keyof typeof switches];
    for (const word of ["on", "ON", "true", "True", "1", " on "]) expect(read({ [name]: word })).toBe(true);
    for (const word of ["off", "Off", "false", "FALSE", "0"]) expect(read({ [name]: word })).toBe(false);
  });

  it.each(Object.keys(switches))("%s refuses anything else, naming the setting and the words it takes", (name) => {
    for (const word of ["yes", "enabled", "2"])
      expect(() => loadConfig({ [name]: word })).toThrow(`${name}=${word} is neither on nor off`);
  });

  it.each([
    ["https://data.example.com", "https://data.example.com"],
    ["https://data.example.com/", "https://data.example.com"],
    ["http://127.0.0.1:3000", "http://127.0.0.1:3000"],
  ])("take PUBLIC_URL=%s as the origin %s", (raw, origin) => {
    expect(loadConfig({ PUBLIC_URL: raw }).oauthServer.publicUrl).toBe(origin);
  });

  it.each(["data.example.com", "ftp://data.example.com", "https://data.example.com/bizdata", "https://x.example?a=1"])(
    "refuse PUBLIC_URL=%s, naming the variable",
    (raw) => {
      expect(() => loadConfig({ PUBLIC_URL: raw })).toThrow(`PUBLIC_URL=${raw} is not an http(s) origin`);
    },
  );
});

describe("the MCP row limit", () => {
  it("is 100, kept below the page size (one more row is read to tell there are more)", () => {
    expect(loadConfig({}).mcpRowLimit).toBe(100);
    expect(loadConfig({ MAX_PAGE_SIZE: "50" }).mcpRowLimit).toBe(49);
    expect(loadConfig({ MCP_ROW_LIMIT: "20" }).mcpRowLimit).toBe(20);
    expect(() => loadConfig({ MAX_PAGE_SIZE: "50", MCP_ROW_LIMIT: "50" })).toThrow(
      "MCP_ROW_LIMIT=50 is not an integer between 1 and 49.",
    );
    expect(() => loadConfig({ MCP_ROW_LIMIT: "0" })).toThrow("MCP_ROW_LIMIT=0");
  });
});

describe("the HTTP timeouts", () => {
  it("are 10 s for the headers and 60 s for the whole request unless set", () => {
    expect(loadConfig({}).http).toEqual({ headersTimeout: 10_000, requestTimeout: 60_000 });
    expect(loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "2000", HTTP_REQUEST_TIMEOUT_MS: "5000" }).http).toEqual({
      headersTimeout: 2000,
      requestTimeout: 5000,
    });
  });

  it("refuse a request timeout below the headers timeout, naming both", () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "20000", HTTP_REQUEST_TIMEOUT_MS: "5000" })).toThrow(
      "HTTP_REQUEST_TIMEOUT_MS=5000 is below HTTP_HEADERS_TIMEOUT_MS=20000",
    );
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "10" })).toThrow("HTTP_HEADERS_TIMEOUT_MS=10 is not an integer");
  });
});

describe("the request budgets", () => {
  it("cap $search at 100 terms unless MAX_SEARCH_TERMS says otherwise", () => {
    expect(loadConfig({}).queryLimits.maxSearchTerms).toBe(100);
    expect(loadConfig({ MAX_SEARCH_TERMS: "20" }).queryLimits.maxSearchTerms).toBe(20);
    expect(() => loadConfig({ MAX_SEARCH_TERMS: "0" })).toThrow(
      "MAX_SEARCH_TERMS=0 is not an integer between 1 and 1000",
    );
  });

  it("hold an answer to 16 MiB and a batch's answers to 32 MiB unless MAX_ANSWER_BYTES, MAX_BATCH_ANSWER_BYTES say otherwise", () => {
    expect(loadConfig({}).queryLimits.maxAnswerBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({}).batchLimits).toEqual({
      maxBatchParts: 64,
      maxChangesetWrites: 64,
      maxAnswerBytes: 32 * 1024 * 1024,
    });
    const set = loadConfig({ MAX_ANSWER_BYTES: "65536", MAX_BATCH_ANSWER_BYTES: "131072" });
    expect([set.queryLimits.maxAnswerBytes, set.batchLimits.maxAnswerBytes]).toEqual([65536, 131072]);
    expect(() => loadConfig({ MAX_ANSWER_BYTES: "10" })).toThrow("MAX_ANSWER_BYTES=10 is not an integer between 1024");
  });

  it("bound an owned collection at 1000 items unless MAX_COLLECTION_ITEMS says otherwise", () => {
    expect(loadConfig({}).writeLimits).toEqual({ maxCollectionItems: 1000 });
    expect(loadConfig({ MAX_COLLECTION_ITEMS: "50" }).writeLimits).toEqual({ maxCollectionItems: 50 });
    expect(() => loadConfig({ MAX_COLLECTION_ITEMS: "many" })).toThrow("MAX_COLLECTION_ITEMS=many is not an integer");
  });
});
describe("the sign-in throttle", () => {
  it("blocks a pair after 5 failures, an address after 20, an account after 10; 1 s doubling to 15 min, 60 s for an account", () => {
    expect(loadConfig({}).signInThrottle).toEqual({
      pair: { failures: 5, maxDelay: 900 },
      address: { failures: 20, maxDelay: 900 },
      account: { failures: 10, maxDelay: 60 },
      firstDelay: 1,
      resetAfter: 86400,
    });
  });

  it("reads each from its variable", () => {
    const throttle = loadConfig({
      SIGNIN_THROTTLE_PAIR_FAILURES: "3",
      SIGNIN_THROTTLE_ADDRESS_FAILURES: "50",
      SIGNIN_THROTTLE_ACCOUNT_FAILURES: "30",
      SIGNIN_THROTTLE_MAX_DELAY_S: "3600",
      SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S: "30",
      SIGNIN_THROTTLE_FIRST_DELAY_S: "2",
      SIGNIN_THROTTLE_RESET_S: "7200",
    }).signInThrottle;
    expect(throttle).toEqual({
      pair: { failures: 3, maxDelay: 3600 },
      address: { failures: 50, maxDelay: 3600 },
      account: { failures: 30, maxDelay: 30 },
      firstDelay: 2,
      resetAfter: 7200,
    });
  });

  it.each([
    [{ SIGNIN_THROTTLE_PAIR_FAILURES: "0" }, "SIGNIN_THROTTLE_PAIR_FAILURES=0 is not an integer between 1 and 1000."],
    [{ SIGNIN_THROTTLE_ADDRESS_FAILURES: "many" }, "SIGNIN_THROTTLE_ADDRESS_FAILURES=many"],
    [{ SIGNIN_THROTTLE_ACCOUNT_FAILURES: "2.5" }, "SIGNIN_THROTTLE_ACCOUNT_FAILURES=2.5"],
    [{ SIGNIN_THROTTLE_FIRST_DELAY_S: "0" }, "SIGNIN_THROTTLE_FIRST_DELAY_S=0"],
    [{ SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S: "-1" }, "SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S=-1"],
    [
      { SIGNIN_THROTTLE_RESET_S: "600" },
      "SIGNIN_THROTTLE_RESET_S=600 is below SIGNIN_THROTTLE_MAX_DELAY_S=900: the count would be forgotten before the longest block ends.",
    ],
    [
      {
        SIGNIN_THROTTLE_MAX_DELAY_S: "60",
        SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S: "7200",
        SIGNIN_THROTTLE_RESET_S: "3600",
      },
      "SIGNIN_THROTTLE_RESET_S=3600 is below SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S=7200",
    ],
  ])("refuses %j, naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("the grant cache", () => {
  it("keeps what a host read of a token's grant for 5 s unless GRANT_CACHE_MS says otherwise (0: nothing)", () => {
    expect(loadConfig({}).auth.grantCacheMs).toBe(5000);
    expect(loadConfig({ GRANT_CACHE_MS: "0" }).auth.grantCacheMs).toBe(0);
    expect(() => loadConfig({ GRANT_CACHE_MS: "60001" })).toThrow(
      "GRANT_CACHE_MS=60001 is not an integer between 0 and 60000.",
    );
  });
});

describe("OAuth client registration", () => {
  it("allows 20 registrations an hour per address, without an initial access token, unless set", () => {
    expect(loadConfig({}).oauthRegistration).toEqual({ perHour: 20, token: undefined });
    expect(
      loadConfig({ OAUTH_REGISTRATIONS_PER_HOUR: "5", OAUTH_REGISTRATION_TOKEN: "a-long-enough-secret" })
        .oauthRegistration,
    ).toEqual({ perHour: 5, token: "a-long-enough-secret" });
  });

  it.each([
    [{ OAUTH_REGISTRATIONS_PER_HOUR: "0" }, "OAUTH_REGISTRATIONS_PER_HOUR=0 is not an integer between 1 and 100000."],
    [{ OAUTH_REGISTRATION_TOKEN: "short" }, "OAUTH_REGISTRATION_TOKEN must be at least 16 characters without spaces."],
    [
      { OAUTH_REGISTRATION_TOKEN: "sixteen chars and more" },
      "OAUTH_REGISTRATION_TOKEN must be at least 16 characters without spaces.",
    ],
  ])("refuses %j, naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe("webhooks", () => {
  it("deliver from every host, https only, 12 attempts from 10 s up to an hour, unless set", () => {
    expect(loadConfig({}).webhooks).toEqual({
      enabled: true,
      pollIntervalMs: 1000,
      timeoutMs: 10_000,
      maxAttempts: 12,
      backoff: { baseMs: 10_000, maxMs: 3600_000 },
      concurrency: 8,
      allowInsecure: false,
      perTenant: 100,
    });
    expect(
      loadConfig({
        WEBHOOKS: "off",
        WEBHOOK_POLL_INTERVAL_MS: "50",
        WEBHOOK_TIMEOUT_MS: "500",
        WEBHOOK_MAX_ATTEMPTS: "3",
        WEBHOOK_BACKOFF_BASE_MS: "100",
        WEBHOOK_BACKOFF_MAX_MS: "100",
        WEBHOOK_CONCURRENCY: "2",
        WEBHOOK_ALLOW_INSECURE: "true",
        WEBHOOKS_PER_TENANT: "5",
      }).webhooks,
    ).toEqual({
      enabled: false,
      pollIntervalMs: 50,
      timeoutMs: 500,
      maxAttempts: 3,
      backoff: { baseMs: 100, maxMs: 100 },
      concurrency: 2,
      allowInsecure: true,
      perTenant: 5,
    });
  });

  it.each([
    [{ WEBHOOK_MAX_ATTEMPTS: "0" }, "WEBHOOK_MAX_ATTEMPTS=0 is not an integer between 1 and 100."],
    [{ WEBHOOK_TIMEOUT_MS: "50" }, "WEBHOOK_TIMEOUT_MS=50 is not an integer between 100 and 600000."],
    [{ WEBHOOK_CONCURRENCY: "0" }, "WEBHOOK_CONCURRENCY=0 is not an integer between 1 and 1000."],
    [{ WEBHOOK_ALLOW_INSECURE: "yes" }, "WEBHOOK_ALLOW_INSECURE=yes is neither on nor off"],
    [
      { WEBHOOK_BACKOFF_BASE_MS: "5000", WEBHOOK_BACKOFF_MAX_MS: "1000" },
      "WEBHOOK_BACKOFF_MAX_MS=1000 is below WEBHOOK_BACKOFF_BASE_MS=5000",
    ],
  ])("refuse %j, naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
