/**
 * The host's own tables: users, refresh tokens, signing keys and sign-in throttling counters.
 * Tenant data (users, tokens) leads with the tenant and is guarded by row-level security.
 */
import { APP_ROLE, tenantPolicy } from "@bizdata/core";
import { boolean, integer, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const userTable = pgTable(
  "bizdata_user",
  {
    tenantId: text("tenant_id").notNull(),
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
    tenantId: text("tenant_id").notNull(),
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
 * Failed sign-ins per account and per client address, shared by every host through the database,
 * so throttling holds however many hosts serve (not tenant data: read before anyone is signed in).
 */
export const signInThrottleTable = pgTable("bizdata_signin_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  windowStart: timestamp("window_start", { withTimezone: true, mode: "string" }).notNull(),
  blockedUntil: timestamp("blocked_until", { withTimezone: true, mode: "string" }),
});

/** every table the host's authentication needs, for `migrate` */
export const authTables = [userTable, refreshTokenTable, signingKeyTable, signInThrottleTable] as const;
