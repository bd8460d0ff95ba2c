/**
 * The host's own tables: users, refresh tokens, signing keys, sign-in throttling counters, the
 * OAuth server's state and its registration counters.
 * Tenant data (users, tokens) leads with the tenant and is guarded by row-level security.
 */
import { APP_ROLE, tenantColumn, tenantPolicy } from "@bizdata/core";
import { boolean, index, integer, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const userTable = pgTable(
  "bizdata_user",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    username: text("username").notNull(),
    /** `scrypt$N$r$p$salt$hash`, base64url parts */
    passwordHash: text("password_hash").notNull(),
    /** role names; what each grants is configured in the host */
    roles: text("roles").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "bizdata_user_pkey", columns: [t.tenantId, t.username] }),
    pgPolicy("bizdata_user_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

export const refreshTokenTable = pgTable(
  "bizdata_refresh_token",
  {
    tenantId: tenantColumn("tenant_id").notNull(),
    /** SHA-256 of the opaque token; the token itself is never stored */
    tokenHash: text("token_hash").notNull(),
    username: text("username").notNull(),
    /** every token rotated from one sign-in shares a family; reuse revokes the family */
    family: uuid("family").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "string" }),
    revoked: boolean("revoked").notNull().default(false),
  },
  (t) => [
    primaryKey({ name: "bizdata_refresh_token_pkey", columns: [t.tenantId, t.tokenHash] }),
    pgPolicy("bizdata_refresh_token_tenant", { for: "all", to: APP_ROLE, ...tenantPolicy("tenant_id") }),
  ],
).enableRLS();

/**
 * Keys that sign the host's own access tokens, shared by every host instance through the
 * database. Not tenant data: read at start-up, before any tenant is known.
 */
export const signingKeyTable = pgTable("bizdata_signing_key", {
  kid: text("kid").primaryKey(),
  algorithm: text("algorithm").notNull(),
  privateJwk: text("private_jwk").notNull(),
  publicJwk: text("public_jwk").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

/**
 * Failed sign-ins per (account, client address) pair, per address and per account
 * (sign-in-throttle.ts), shared by every host through the database, so throttling holds however
 * many hosts serve (not tenant data: read before anyone is signed in).
 */
export const signInThrottleTable = pgTable("bizdata_signin_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  /** when the count began */
  windowStart: timestamp("window_start", { withTimezone: true, mode: "string" }).notNull(),
  blockedUntil: timestamp("blocked_until", { withTimezone: true, mode: "string" }),
  /** the count starts again this long after it (added later: null on the rows of earlier versions) */
  lastFailureAt: timestamp("last_failure_at", { withTimezone: true, mode: "string" }),
});

/**
 * What the OAuth 2.1 server keeps between requests (registered clients, grants, authorization
 * codes, refresh tokens, browser sessions, interactions), one row per item as oidc-provider's
 * adapter stores it, so every host instance sees what another issued. Not tenant data: clients
 * belong to no tenant, and a code is redeemed before anyone is known.
 */
export const oauthStateTable = pgTable(
  "bizdata_oauth_state",
  {
    /** the provider's model name: Client, Grant, AuthorizationCode, RefreshToken, Session, … */
    kind: text("kind").notNull(),
    id: text("id").notNull(),
    /** the provider's payload as JSON text */
    payload: text("payload").notNull(),
    /** revoking a grant removes every code and token issued under it */
    grantId: text("grant_id"),
    /** a browser session's uid, which the provider looks sessions up by */
    uid: text("uid"),
    /** null: kept until removed (registered clients) */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }),
    consumedAt: timestamp("consumed_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    primaryKey({ name: "bizdata_oauth_state_pkey", columns: [t.kind, t.id] }),
    index("bizdata_oauth_state_grant_idx").on(t.kind, t.grantId),
    index("bizdata_oauth_state_uid_idx").on(t.kind, t.uid),
    index("bizdata_oauth_state_expires_idx").on(t.expiresAt),
  ],
);

/**
 * OAuth client registrations per client address in the current hour (registration-limit.ts),
 * shared by every host (not tenant data: clients belong to no tenant).
 */
export const oauthRegistrationTable = pgTable("bizdata_oauth_registration", {
  address: text("address").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true, mode: "string" }).notNull(),
  registrations: integer("registrations").notNull(),
});

/** every table the host's authentication needs, for `migrate` */
export const authTables = [
  userTable,
  refreshTokenTable,
  signingKeyTable,
  signInThrottleTable,
  oauthStateTable,
  oauthRegistrationTable,
] as const;
