/**
 * An OAuth 2.1 client for tests of the host's authorization server: a served host with the server
 * on, dynamic registration, PKCE, the authorization URL and the token requests, all over real
 * HTTP (the server answers only when served by @hono/node-server).
 */
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { sampleModel } from "@bizdata/examples";
import { createApp, loadConfig, loadSigningKeys, migrateService } from "@bizdata/host";
import { serve } from "@hono/node-server";
import { testDatabase } from "./database.js";

export interface OAuthHost {
  /** the issuer and origin, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** the API's resource indicator: `${url}${basePath}` */
  readonly resource: string;
  /** where the API and the OAuth endpoints live (`/api`) */
  readonly basePath: string;
  readonly app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

/**
 * The test app's settings, trusting proxies on loopback: the browser helper names a client address
 * of its own in `X-Forwarded-For`, so that sign-in throttling counters are never shared between
 * tests (nor between runs on one PostgreSQL database).
 */
export const oauthHostConfig = loadConfig({
  MAX_PAGE_SIZE: "50",
  MAX_BODY_BYTES: String(64 * 1024),
  LOG_LEVEL: "silent",
  TRUSTED_PROXIES: "loopback",
  // a sign-in block outlasts any test, so that a test of it never depends on how fast it runs
  SIGNIN_THROTTLE_FIRST_DELAY_S: "600",
  // a revoked grant's tokens are refused on the next request, not up to 5 s later
  GRANT_CACHE_MS: "0",
});

/**
 * The reference model's app with the OAuth server on, served on a free loopback port; `fetch` is
 * how the server fetches client metadata documents (client-metadata.ts)
 */
export async function serveOAuthHost(
  basePath = "/api",
  config = oauthHostConfig,
  { fetch: documents }: { fetch?: typeof fetch } = {},
): Promise<OAuthHost> {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const keys = await loadSigningKeys(db);
  let app: ReturnType<typeof createApp> | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: (req, env) => app!.fetch(req, env), hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({
    db,
    model: sampleModel,
    keys,
    config,
    basePath,
    oauthServer: { publicUrl: url, ...(documents && { fetch: documents }) },
  });
  return {
    url,
    resource: `${url}${basePath}`,
    basePath,
    app,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** an address of the documentation range, a new one each call */
export const someClientAddress = () => `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;

/**
 * POST the registration endpoint (RFC 7591), from `address` (by default one of its own, as the
 * host trusts loopback proxies: registrations are limited per address and hour)
 */
export const register = (
  host: OAuthHost,
  metadata: Record<string, unknown>,
  { address = someClientAddress(), headers = {} }: { address?: string; headers?: Record<string, string> } = {},
) =>
  fetch(`${host.url}${host.basePath}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": address, ...headers },
    body: JSON.stringify(metadata),
  });

export interface PublicClient {
  readonly clientId: string;
  readonly redirectUri: string;
}

/** registers a public client (no secret) like an agent connector does */
export async function registerPublicClient(host: OAuthHost, name = "Test agent"): Promise<PublicClient> {
  // nothing listens there: the browser helper answers it (a port Chromium does not block)
  const redirectUri = "http://127.0.0.1:47123/callback";
  const res = await register(host, {
    client_name: name,
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return { clientId: ((await res.json()) as { client_id: string }).client_id, redirectUri };
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface AuthorizationRequest {
  readonly scope?: string;
  readonly state?: string;
  /** the code challenge; `null` sends none */
  readonly challenge?: string | null;
  readonly method?: string;
  readonly resource?: string;
}

export function authorizationUrl(host: OAuthHost, client: PublicClient, request: AuthorizationRequest = {}): string {
  const url = new URL(`${host.url}${host.basePath}/oauth/authorize`);
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: request.scope ?? "bizdata.read bizdata.write offline_access",
    state: request.state ?? randomBytes(8).toString("hex"),
    resource: request.resource ?? host.resource,
    ...(request.challenge !== null && {
      code_challenge: request.challenge ?? pkce().challenge,
      code_challenge_method: request.method ?? "S256",
    }),
  };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly scope?: string;
}

/** POST the token endpoint with a form body */
export const tokenRequest = (host: OAuthHost, form: Record<string, string>) =>
  fetch(`${host.url}${host.basePath}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });

export const exchangeCode = (host: OAuthHost, client: PublicClient, code: string, verifier: string) =>
  tokenRequest(host, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
  });

export const refreshTokens = (host: OAuthHost, client: PublicClient, refreshToken: string) =>
  tokenRequest(host, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.clientId });
