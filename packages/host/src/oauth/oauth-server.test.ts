/**
 * The OAuth 2.1 authorization server over real HTTP, with its sign-in and consent pages driven in
 * headless Chromium: metadata, dynamic registration, the code flow with PKCE up to an API call,
 * refresh rotation, and every refusal with its error. Browser cases skip, with the reason, only
 * when Chromium cannot start.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { caller, config, dataOf, PASSWORD, signIn, testApp } from "@bizdata/test-kit/host-app";
import { authorizeInBrowser, launchBrowser, newClientContext } from "@bizdata/test-kit/oauth-browser";
import {
  authorizationUrl,
  exchangeCode,
  type OAuthHost,
  oauthHostConfig,
  type PublicClient,
  pkce,
  refreshTokens,
  register,
  registerPublicClient,
  serveOAuthHost,
  someClientAddress,
  type TokenResponse,
} from "@bizdata/test-kit/oauth-client";
import { authorizeWithForms, formAgent } from "@bizdata/test-kit/oauth-forms";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const launched = await launchBrowser();
if ("reason" in launched) console.warn(`OAuth browser tests skipped: ${launched.reason}`);
const browser = "browser" in launched ? launched.browser : undefined;

let host: OAuthHost;
let client: PublicClient;
/** tenant A: alice (admin), victor (reader), a product and a journal; tenant B: its own product */
const tenantA = uniqueTenant("oauth-a");
const tenantB = uniqueTenant("oauth-b");
const ids: { productA?: string; productB?: string; journal?: string } = {};

const json = async (res: Response) => (await res.json()) as any;
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as any;
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as any;

const api = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${host.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  host = await serveOAuthHost();
  client = await registerPublicClient(host);
  const db = await testDatabase();
  for (const tenant of [tenantA, tenantB]) {
    await createTenant(db, tenant);
    await setUser(db, tenant, "alice", PASSWORD, ["admin"]);
  }
  await setUser(db, tenantA, "victor", PASSWORD, ["reader"]);
  const app = await testApp();
  const adminA = caller(app, tenantA, await signIn(app, tenantA, "alice"));
  const adminB = caller(app, tenantB, await signIn(app, tenantB, "alice"));
  ids.productA = (await json(await adminA.request("POST", "/api/Product", { SKU: "OA-1", Price: 5 }))).Guid;
  ids.productB = (await json(await adminB.request("POST", "/api/Product", { SKU: "OB-1", Price: 7 }))).Guid;
  ids.journal = (await json(await adminA.request("POST", "/api/Journal", { DocNumber: "OJ-1", Amount: 3 }))).Guid;
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

describe("authorization-server metadata", () => {
  it("publishes RFC 8414 metadata at the root, the same as the OpenID configuration", async () => {
    const res = await fetch(`${host.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const metadata = await json(res);
    expect(metadata).toMatchObject({
      issuer: host.url,
      authorization_endpoint: `${host.url}/api/oauth/authorize`,
      token_endpoint: `${host.url}/api/oauth/token`,
      registration_endpoint: `${host.url}/api/oauth/register`,
      revocation_endpoint: `${host.url}/api/oauth/revoke`,
      jwks_uri: `${host.url}/api/oauth/jwks`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(metadata.grant_types_supported).not.toContain("implicit");
    expect(metadata.scopes_supported).toEqual(
      expect.arrayContaining(["bizdata.read", "bizdata.write", "offline_access"]),
    );
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");
    const openid = await json(await fetch(`${host.url}/.well-known/openid-configuration`));
    expect(openid).toEqual(metadata);
  });

  it("names itself in the protected-resource metadata, with the API as the resource", async () => {
    const res = await json(await fetch(`${host.url}/.well-known/oauth-protected-resource`));
    expect(res).toMatchObject({
      resource: host.resource,
      authorization_servers: [host.url],
      scopes_supported: ["bizdata.read", "bizdata.write"],
    });
  });

  it("publishes the host's signing key as its JWKS", async () => {
    const jwks = await json(await fetch(`${host.url}/api/oauth/jwks`));
    const hostKeys = await json(await fetch(`${host.url}/.well-known/jwks.json`));
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty("d");
    expect(hostKeys.keys.map((k: { kid: string }) => k.kid)).toContain(jwks.keys[0].kid);
  });

  it("is off unless enabled: no metadata, and the protected resource names no server of its own", async () => {
    const app = await testApp();
    expect((await app.request("/.well-known/oauth-authorization-server")).status).toBe(404);
    expect((await app.request("/api/oauth/authorize")).status).toBe(401);
    expect((await json(await app.request("/.well-known/oauth-protected-resource"))).authorization_servers).toEqual([]);
  });

  it("answers 501, naming why, when the app is not served by @hono/node-server", async () => {
    const db = await testDatabase();
    const keys = await loadSigningKeys(db);
    const app = createApp({ db, model: sampleModel, keys, config, oauthServer: { publicUrl: "http://oauth.test" } });
    const res = await app.request("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(501);
    expect((await json(res)).error.message).toMatch(/@hono\/node-server/);
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client without a secret, with the defaults an agent needs", async () => {
    const res = await register(host, {
      client_name: "Agent connector",
      redirect_uris: ["https://agent.example/callback", "http://127.0.0.1:8765/cb", "http://localhost/cb"],
      token_endpoint_auth_method: "none",
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({
      client_id: expect.any(String),
      client_name: "Agent connector",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    expect(body).not.toHaveProperty("client_secret");
    expect(body).not.toHaveProperty("registration_access_token");
  });

  it("registers a client naming the API's scopes, as an MCP client does from the resource metadata, without them", async () => {
    const metadata = { redirect_uris: ["http://127.0.0.1:8765/cb"], token_endpoint_auth_method: "none" };
    // the API's scopes are granted per resource to every client: the registered scope keeps the server's own
    const mcpClient = await register(host, { ...metadata, scope: "bizdata.read bizdata.write" });
    expect(mcpClient.status).toBe(201);
    expect(await json(mcpClient)).not.toHaveProperty("scope");
    const offline = await register(host, { ...metadata, scope: "bizdata.read offline_access bizdata.write" });
    expect(offline.status).toBe(201);
    expect((await json(offline)).scope).toBe("offline_access");
    // a scope of neither is still refused
    const unknown = await register(host, { ...metadata, scope: "bizdata.read bizdata.admin" });
    expect(unknown.status).toBe(400);
    expect(await json(unknown)).toEqual({
      error: "invalid_client_metadata",
      error_description: "scope must only contain Authorization Server supported scope values",
    });
  });

  it("gives a confidential client a secret", async () => {
    const res = await register(host, { redirect_uris: ["https://app.example/cb"] });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      token_endpoint_auth_method: "client_secret_basic",
      client_secret: expect.any(String),
    });
  });

  it.each([
    ["a fragment", ["https://agent.example/cb#here"], /fragments/],
    ["plain http to another machine", ["http://agent.example/cb"], /must use https/],
    ["a script URI", ["javascript:alert(1)"], /web uris/],
    ["no URI at all", ["not a uri"], /valid uris/],
    ["a custom scheme for a web client", ["agent-app:/cb"], /web uris/],
  ])("refuses a redirect URI with %s", async (_, uris, message) => {
    const res = await register(host, { redirect_uris: uris, token_endpoint_auth_method: "none" });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toMatch(message);
  });

  it("refuses a registration without redirect URIs, naming the field", async () => {
    const res = await register(host, { token_endpoint_auth_method: "none" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "invalid_redirect_uri",
      error_description: expect.stringMatching(/redirect_uris/),
    });
  });

  it("refuses an implicit-flow client", async () => {
    const res = await register(host, {
      redirect_uris: ["https://agent.example/cb"],
      response_types: ["token"],
      grant_types: ["implicit"],
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("invalid_client_metadata");
  });
});

describe("who may register, and how often", () => {
  const agent = { redirect_uris: ["http://127.0.0.1:8765/cb"], token_endpoint_auth_method: "none" };

  it("registers 20 clients an hour from one address: of 30 at once, 20 get 201 and 10 get 429 with Retry-After", async () => {
    const address = someClientAddress();
    const answers = await Promise.all(Array.from({ length: 30 }, () => register(host, agent, { address })));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(20).fill(201), ...Array(10).fill(429)]);
    for (const res of answers.filter((r) => r.status === 429)) {
      const wait = Number(res.headers.get("retry-after"));
      expect(wait).toBeGreaterThan(3000);
      expect(wait).toBeLessThanOrEqual(3600);
      expect(await json(res)).toEqual({
        error: "too_many_requests",
        error_description: expect.stringMatching(
          /^This address registered 20 clients within the hour \(OAUTH_REGISTRATIONS_PER_HOUR\); try again in \d+ seconds\.$/,
        ),
      });
    }
    // another address is not held back
    expect((await register(host, agent)).status).toBe(201);
  });

  it("counts again once the address's hour is over", async () => {
    const address = someClientAddress();
    for (let i = 0; i < 20; i++) expect((await register(host, agent, { address })).status).toBe(201);
    expect((await register(host, agent, { address })).status).toBe(429);
    await (await testDatabase()).query({
      sql: "UPDATE bizdata_oauth_registration SET window_start = window_start - interval '1 hour' WHERE address = $1",
      params: [address],
    });
    expect((await register(host, agent, { address })).status).toBe(201);
  });

  describe("behind an initial access token (OAUTH_REGISTRATION_TOKEN, RFC 7591 3)", () => {
    const token = "initial-access-token-1234";
    let guarded: OAuthHost;
    beforeAll(async () => {
      const { oauthRegistration } = loadConfig({ OAUTH_REGISTRATION_TOKEN: token, OAUTH_REGISTRATIONS_PER_HOUR: "3" });
      guarded = await serveOAuthHost("/api", { ...oauthHostConfig, oauthRegistration });
    });
    afterAll(() => guarded?.close());

    it.each([
      ["no Authorization header", {}],
      ["another token", { Authorization: "Bearer initial-access-token-1235" }],
      ["the token under another scheme", { Authorization: `Basic ${token}` }],
    ])("refuses a registration with %s: 401 invalid_token", async (_, headers) => {
      const res = await register(guarded, agent, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      expect(await json(res)).toEqual({
        error: "invalid_token",
        error_description: "Registration needs the initial access token: send Authorization: Bearer <token>.",
      });
    });

    it("registers a client that sends it", async () => {
      const res = await register(guarded, agent, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(201);
      expect((await json(res)).client_id).toEqual(expect.any(String));
    });

    it("counts attempts without it, so that it cannot be guessed faster than the limit", async () => {
      const address = someClientAddress();
      for (let i = 0; i < 3; i++) expect((await register(guarded, agent, { address })).status).toBe(401);
      const right = await register(guarded, agent, { address, headers: { Authorization: `Bearer ${token}` } });
      expect(right.status).toBe(429);
    });
  });
});

describe("authorization requests refused before any sign-in", () => {
  const authorize = (url: string) => fetch(url, { redirect: "manual" });
  const errorAt = (res: Response) => new URL(res.headers.get("location")!).searchParams;

  it("refuses a request without PKCE, back at the redirect URI", async () => {
    const res = await authorize(authorizationUrl(host, client, { challenge: null, state: "s1" }));
    expect(res.status).toBe(303);
    const params = errorAt(res);
    expect(params.get("error")).toBe("invalid_request");
    expect(params.get("error_description")).toMatch(/PKCE/);
    expect(params.get("state")).toBe("s1");
  });

  it("refuses plain PKCE", async () => {
    const verifier = pkce().verifier;
    const res = await authorize(authorizationUrl(host, client, { challenge: verifier, method: "plain" }));
    expect(res.status).toBe(303);
    expect(errorAt(res).get("error")).toBe("invalid_request");
    expect(errorAt(res).get("error_description")).toMatch(/code_challenge_method/);
  });

  it("refuses a resource that is not this service's API", async () => {
    const res = await authorize(authorizationUrl(host, client, { resource: "https://elsewhere.example/api" }));
    expect(res.status).toBe(303);
    expect(errorAt(res).get("error")).toBe("invalid_target");
  });

  it("shows an error page, not a redirect, for a redirect URI the client did not register", async () => {
    const res = await authorize(authorizationUrl(host, { ...client, redirectUri: "https://evil.example/cb" }));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toMatch(/redirect_uri did not match/);
  });
});

describe.skipIf(browser === undefined)("the code flow in the browser", () => {
  /** signs `username` of tenant A in through the pages and returns the code exchange's answer */
  const authorize = async (
    username: string,
    request: { scope?: string } = {},
  ): Promise<{ tokens: TokenResponse; verifier: string; code: string }> => {
    const { verifier, challenge } = pkce();
    const back = await authorizeInBrowser(
      browser!,
      authorizationUrl(host, client, { ...request, challenge }),
      client.redirectUri,
      { tenant: tenantA, username, password: PASSWORD },
    );
    expect(back.searchParams.get("iss")).toBe(host.url);
    const code = back.searchParams.get("code")!;
    const res = await exchangeCode(host, client, code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    return { tokens: await json(res), verifier, code };
  };

  it("signs in, consents, and the token reads the API under the user's tenant", async () => {
    const { tokens } = await authorize("alice");
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: config.auth.accessTokenTtl });
    expect(tokens.scope!.split(" ").sort()).toEqual(["bizdata.read", "bizdata.write"]);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // RFC 9068: the host's key, typ at+jwt, the API as audience, the user and the tenant
    expect(headerOf(tokens.access_token)).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    expect(claimsOf(tokens.access_token)).toMatchObject({
      iss: host.url,
      aud: host.resource,
      sub: "alice",
      tid: tenantA,
      client_id: client.clientId,
      scope: "bizdata.read bizdata.write",
    });
    const products = await api(tokens.access_token, "GET", "/api/Product?$select=SKU");
    expect(products.status).toBe(200);
    expect(dataOf((await json(products)).value)).toEqual([{ Guid: ids.productA, SKU: "OA-1" }]);
    expect((await api(tokens.access_token, "GET", `/api/Product(${ids.productB})`)).status).toBe(404);
    const created = await api(tokens.access_token, "POST", "/api/Product", { SKU: "OA-2" });
    expect(created.status).toBe(201);
  });

  it("rotates refresh tokens: a used one is refused, and using it again revokes the newer one too", async () => {
    const { tokens } = await authorize("alice");
    const first = await refreshTokens(host, client, tokens.refresh_token!);
    expect(first.status).toBe(200);
    const rotated: TokenResponse = await json(first);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api(rotated.access_token, "GET", "/api/Product")).status).toBe(200);
    const again = await refreshTokens(host, client, tokens.refresh_token!);
    expect(again.status).toBe(400);
    expect(await json(again)).toMatchObject({ error: "invalid_grant" });
    // reuse means theft: the whole grant is revoked
    const newer = await refreshTokens(host, client, rotated.refresh_token!);
    expect(newer.status).toBe(400);
    expect((await json(newer)).error).toBe("invalid_grant");
  });

  it("revokes a refresh token on request (RFC 7009)", async () => {
    const { tokens } = await authorize("alice");
    const revoked = await fetch(`${host.url}/api/oauth/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    const refresh = await refreshTokens(host, client, tokens.refresh_token!);
    expect(refresh.status).toBe(400);
    expect((await json(refresh)).error).toBe("invalid_grant");
  });

  it("refuses a wrong PKCE verifier", async () => {
    const { challenge } = pkce();
    const back = await authorizeInBrowser(browser!, authorizationUrl(host, client, { challenge }), client.redirectUri, {
      tenant: tenantA,
      username: "alice",
      password: PASSWORD,
    });
    const res = await exchangeCode(host, client, back.searchParams.get("code")!, pkce().verifier);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a code used twice, and revokes the refresh token issued for it", async () => {
    const { tokens, code, verifier } = await authorize("alice");
    const reused = await exchangeCode(host, client, code, verifier);
    expect(reused.status).toBe(400);
    expect(await json(reused)).toMatchObject({ error: "invalid_grant" });
    const refresh = await refreshTokens(host, client, tokens.refresh_token!);
    expect(refresh.status).toBe(400);
    expect((await json(refresh)).error).toBe("invalid_grant");
  });

  it("sends access_denied back to the client when the user denies", async () => {
    const back = await authorizeInBrowser(
      browser!,
      authorizationUrl(host, client, { state: "deny-1" }),
      client.redirectUri,
      { tenant: tenantA, username: "alice", password: PASSWORD, decision: "deny" },
    );
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("deny-1");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("limits a bizdata.read token to reading", async () => {
    const { tokens } = await authorize("alice", { scope: "bizdata.read" });
    expect(claimsOf(tokens.access_token).scope).toBe("bizdata.read");
    expect((await api(tokens.access_token, "GET", "/api/Product")).status).toBe(200);
    const write = await api(tokens.access_token, "PATCH", `/api/Product(${ids.productA})`, { Price: 6 });
    expect(write.status).toBe(403);
    expect((await json(write)).error.code).toBe("Forbidden");
  });

  it("limits a reader's token to the reader's role whatever its scopes", async () => {
    const { tokens } = await authorize("victor");
    expect(claimsOf(tokens.access_token).scope).toBe("bizdata.read bizdata.write");
    expect((await api(tokens.access_token, "GET", "/api/Journal")).status).toBe(200);
    const post = await api(tokens.access_token, "POST", `/api/Journal(${ids.journal})/Post`);
    expect(post.status).toBe(403);
    expect((await json(post)).error.message).toMatch(/calling Journal\.Post/);
  });

  it("shows the client and what it asks for on the consent page", async () => {
    let shown = "";
    await authorizeInBrowser(
      browser!,
      authorizationUrl(host, client, { scope: "bizdata.read offline_access" }),
      client.redirectUri,
      {
        tenant: tenantA,
        username: "alice",
        password: PASSWORD,
        onConsent: async (page) => {
          shown = (await page.locator("main").textContent()) ?? "";
        },
      },
    );
    expect(shown).toMatch(/Test agent/);
    expect(shown).toMatch(/returns to 127\.0\.0\.1:47123\)/);
    expect(shown).toMatch(/Read your business data/);
    expect(shown).not.toMatch(/Create, change and delete/);
    expect(shown).toMatch(new RegExp(`alice.*of tenant.*${tenantA}`));
  });
});

describe.skipIf(browser === undefined)("the sign-in and consent pages", () => {
  const open = async () => {
    const context = await newClientContext(browser!);
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    const response = await page.goto(authorizationUrl(host, client));
    /** where the browser was sent back to the client, once it was */
    const returned = () => {
      const back = requests.find((url) => url.startsWith(client.redirectUri));
      return back === undefined ? undefined : new URL(back);
    };
    const backAtClient = () => page.waitForRequest((request) => request.url().startsWith(client.redirectUri));
    return { context, page, response, returned, backAtClient };
  };

  it("work with the keyboard alone, under a policy that loads nothing from elsewhere", async () => {
    const { context, page, response, returned, backAtClient } = await open();
    try {
      expect(response!.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
      expect(response!.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
      expect(await page.locator("html").getAttribute("lang")).toBe("en");
      // the first field has the focus; type, tab, type, tab, type, enter
      await page.keyboard.type(tenantA);
      await page.keyboard.press("Tab");
      await page.keyboard.type("alice");
      await page.keyboard.press("Tab");
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Allow access?" }).waitFor();
      // "Allow" has the focus
      const back = backAtClient();
      await page.keyboard.press("Enter");
      await back;
      expect(returned()!.searchParams.get("code")).toEqual(expect.any(String));
    } finally {
      await context.close();
    }
  });

  it("tell a wrong password without telling which part was wrong, and keep the request open", async () => {
    const { context, page, returned, backAtClient } = await open();
    try {
      await page.getByLabel("Tenant").fill(tenantB);
      await page.getByLabel("User name").fill("victor");
      await page.getByLabel("Password").fill(PASSWORD);
      const refused = page.waitForResponse((r) => r.request().method() === "POST");
      await page.getByRole("button", { name: "Sign in" }).click();
      expect((await refused).status()).toBe(401);
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toBe("The tenant, user name or password is not correct.");
      expect(await page.getByLabel("Password").inputValue()).toBe("");
      await page.getByLabel("Tenant").fill(tenantA);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Allow access?" }).waitFor();
      const back = backAtClient();
      await page.getByRole("button", { name: "Allow" }).click();
      await back;
      expect(returned()!.searchParams.get("code")).toEqual(expect.any(String));
    } finally {
      await context.close();
    }
  });

  it("refuse a form without its CSRF token, changing nothing", async () => {
    const { context, page, returned, backAtClient } = await open();
    try {
      const signInUrl = page.url();
      const forged = await page.request.post(signInUrl, {
        form: { tenant: tenantA, username: "alice", password: PASSWORD, decision: "sign-in", csrf: "forged" },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toMatch(/not sent from its page/);
      await page.getByLabel("Tenant").fill(tenantA);
      await page.getByLabel("User name").fill("alice");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Allow access?" }).waitFor();
      const consentUrl = page.url();
      const noToken = await page.request.post(consentUrl, { form: { decision: "accept" }, maxRedirects: 0 });
      expect(noToken.status()).toBe(403);
      // the token of the sign-in step does not pass for the consent step
      const csrf = await page.locator('input[name="csrf"]').inputValue();
      const otherStep = await page.request.post(consentUrl, {
        form: { decision: "accept", csrf: `${csrf.slice(1)}x` },
        maxRedirects: 0,
      });
      expect(otherStep.status()).toBe(403);
      expect(returned()).toBeUndefined();
      const back = backAtClient();
      await page.getByRole("button", { name: "Allow" }).click();
      await back;
      expect(returned()!.searchParams.get("code")).toEqual(expect.any(String));
    } finally {
      await context.close();
    }
  });

  it("throttle failed sign-ins like POST /api/auth/signin: 429 with Retry-After", async () => {
    const { context, page } = await open();
    try {
      const csrf = await page.locator('input[name="csrf"]').inputValue();
      const attempt = () =>
        page.request.post(page.url(), {
          form: { csrf, tenant: tenantA, username: "mallory", password: "guess", decision: "sign-in" },
          maxRedirects: 0,
        });
      for (let i = 0; i < 5; i++) expect((await attempt()).status()).toBe(401);
      const blocked = await attempt();
      expect(blocked.status()).toBe(429);
      expect(Number(blocked.headers()["retry-after"])).toBeGreaterThan(0);
      expect(await blocked.text()).toMatch(/Too many failed sign-ins; try again in 10 minutes\./);
    } finally {
      await context.close();
    }
  });

  it("refuse an empty field, naming what is missing", async () => {
    const { context, page } = await open();
    try {
      const csrf = await page.locator('input[name="csrf"]').inputValue();
      const res = await page.request.post(page.url(), {
        form: { csrf, tenant: tenantA, username: "alice", password: "", decision: "sign-in" },
        maxRedirects: 0,
      });
      expect(res.status()).toBe(400);
      expect(await res.text()).toMatch(/Enter the tenant, your user name and your password\./);
    } finally {
      await context.close();
    }
  });

  it("refuse a form posted without the browser's interaction cookie", async () => {
    const { context, page } = await open();
    try {
      const csrf = await page.locator('input[name="csrf"]').inputValue();
      const res = await fetch(page.url(), {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, tenant: tenantA, username: "alice", password: PASSWORD }).toString(),
        redirect: "manual",
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/expired/);
    } finally {
      await context.close();
    }
  });
});

describe("access tokens of a grant that is revoked (RFC 9700 4.14), through the pages' forms", () => {
  /** signs `username` of tenant A in through the forms, allows, and exchanges the code */
  const authorize = async (username = "alice") => {
    const { verifier, challenge } = pkce();
    const back = await authorizeWithForms(authorizationUrl(host, client, { challenge }), client.redirectUri, {
      tenant: tenantA,
      username,
      password: PASSWORD,
    });
    const code = back.searchParams.get("code")!;
    const res = await exchangeCode(host, client, code, verifier);
    expect(res.status).toBe(200);
    return { tokens: (await json(res)) as TokenResponse, code, verifier };
  };
  const refused = async (token: string) => {
    const res = await api(token, "GET", "/api/Product");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  };

  it("name their grant, which the API finds standing", async () => {
    const { tokens } = await authorize();
    expect(claimsOf(tokens.access_token).gid).toEqual(expect.any(String));
    expect((await api(tokens.access_token, "GET", "/api/Product")).status).toBe(200);
  });

  it("a code used twice: the access token the first use gave is refused on the next request", async () => {
    const { tokens, code, verifier } = await authorize();
    expect((await api(tokens.access_token, "GET", "/api/Product")).status).toBe(200);
    const reused = await exchangeCode(host, client, code, verifier);
    expect(reused.status).toBe(400);
    expect((await json(reused)).error).toBe("invalid_grant");
    await refused(tokens.access_token);
  });

  it("a refresh token used twice: every access token of the grant is refused", async () => {
    const { tokens } = await authorize();
    const rotated: TokenResponse = await json(await refreshTokens(host, client, tokens.refresh_token!));
    expect((await api(rotated.access_token, "GET", "/api/Product")).status).toBe(200);
    expect((await refreshTokens(host, client, tokens.refresh_token!)).status).toBe(400);
    await refused(tokens.access_token);
    await refused(rotated.access_token);
  });

  it("a refresh token revoked by its client (RFC 7009): the grant's access token is refused", async () => {
    const { tokens } = await authorize();
    const revoked = await fetch(`${host.url}/api/oauth/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    await refused(tokens.access_token);
  });

  it("a user removed: their access token is refused", async () => {
    const db = await testDatabase();
    await setUser(db, tenantA, "rita", PASSWORD, ["admin"]);
    const { tokens } = await authorize("rita");
    expect((await api(tokens.access_token, "GET", "/api/Product")).status).toBe(200);
    await db.query({
      sql: "DELETE FROM bizdata_user WHERE tenant_id = $1 AND username = 'rita'",
      params: [tenantA],
    });
    await refused(tokens.access_token);
  });

  it("another grant of the same user stands", async () => {
    const kept = await authorize();
    const { code, verifier } = await authorize();
    expect((await exchangeCode(host, client, code, verifier)).status).toBe(400);
    expect((await api(kept.tokens.access_token, "GET", "/api/Product")).status).toBe(200);
  });
});

describe("the sign-in page's throttle, the one POST /api/auth/signin has", () => {
  /** the sign-in page of a new authorization request, for an agent of its own address */
  const signInPage = async () => {
    const agent = formAgent();
    let res = await agent.request(authorizationUrl(host, client));
    while (res.status === 303) res = await agent.request(new URL(res.headers.get("location")!, host.url).href);
    const page = { url: res.url, csrf: agent.csrfOf(await res.text()) };
    const attempt = (password: string) =>
      agent.request(page.url, { csrf: page.csrf, tenant: tenantA, username: "alice", password, decision: "sign-in" });
    return attempt;
  };

  it("blocks the pair after 5 failures with 429 and Retry-After, while the owner signs in from elsewhere", async () => {
    const attacker = await signInPage();
    for (let i = 0; i < 5; i++) expect((await attacker("guess")).status).toBe(401);
    const blocked = await attacker(PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(500);
    expect(await blocked.text()).toMatch(/Too many failed sign-ins; try again in 10 minutes\./);
    const owner = await signInPage();
    const signedIn = await owner(PASSWORD);
    expect(signedIn.status).toBe(303);
  });
});

describe("under another base path", () => {
  it("serves its endpoints under it, with the API there as the resource", async () => {
    const other = await serveOAuthHost("/odata/v1");
    try {
      const metadata = await json(await fetch(`${other.url}/.well-known/oauth-authorization-server`));
      expect(metadata).toMatchObject({
        issuer: other.url,
        authorization_endpoint: `${other.url}/odata/v1/oauth/authorize`,
        token_endpoint: `${other.url}/odata/v1/oauth/token`,
      });
      expect(await json(await fetch(`${other.url}/.well-known/oauth-protected-resource`))).toMatchObject({
        resource: `${other.url}/odata/v1`,
        authorization_servers: [other.url],
      });
      const registered = await registerPublicClient(other);
      const res = await fetch(authorizationUrl(other, registered), { redirect: "manual" });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toMatch(/^\/odata\/v1\/oauth\/interaction\//);
    } finally {
      await other.close();
    }
  });
});

describe("tokens the API refuses", () => {
  /** the grant of a real authorization of alice, which minted tokens name */
  let gid: string | undefined;
  beforeAll(async () => {
    const { verifier, challenge } = pkce();
    const back = await authorizeWithForms(authorizationUrl(host, client, { challenge }), client.redirectUri, {
      tenant: tenantA,
      username: "alice",
      password: PASSWORD,
    });
    const tokens = await json(await exchangeCode(host, client, back.searchParams.get("code")!, verifier));
    gid = claimsOf(tokens.access_token).gid;
  });

  /** a token as the server issues them, signed with the host's key, for `tid` */
  /** `grant` null: a token naming none */
  const mint = async (tid: string, sub = "alice", grant: string | null | undefined = gid) => {
    const keys = await loadSigningKeys(await testDatabase());
    return new SignJWT({
      tid,
      scope: "bizdata.read bizdata.write",
      client_id: client.clientId,
      ...(typeof grant === "string" && { gid: grant }),
    })
      .setProtectedHeader({ alg: "ES256", kid: keys.current.kid, typ: "at+jwt" })
      .setIssuer(host.url)
      .setAudience(host.resource)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(keys.current.key);
  };

  it("refuses a token for a tenant its user is not in", async () => {
    expect((await api(await mint(tenantA), "GET", "/api/Product")).status).toBe(200);
    const other = uniqueTenant("oauth-c");
    await createTenant(await testDatabase(), other);
    const res = await api(await mint(other), "GET", "/api/Product");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("refuses a token naming no grant, or a grant the server never gave", async () => {
    expect((await api(await mint(tenantA, "alice", null), "GET", "/api/Product")).status).toBe(401);
    expect((await api(await mint(tenantA, "alice", "no-such-grant"), "GET", "/api/Product")).status).toBe(401);
  });

  it("refuses a token for another resource", async () => {
    const keys = await loadSigningKeys(await testDatabase());
    const token = await new SignJWT({ tid: tenantA, scope: "bizdata.read" })
      .setProtectedHeader({ alg: "ES256", kid: keys.current.kid, typ: "at+jwt" })
      .setIssuer(host.url)
      .setAudience(`${host.url}/mcp`)
      .setSubject("alice")
      .setExpirationTime("5m")
      .sign(keys.current.key);
    expect((await api(token, "GET", "/api/Product")).status).toBe(401);
  });
});
