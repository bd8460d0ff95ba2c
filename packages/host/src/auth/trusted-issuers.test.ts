import { createServer, type Server } from "node:http";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { caller } from "@bizdata/test-kit/host-app";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadConfig } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { loadSigningKeys } from "./signing-keys.js";

// a local test issuer: keys made here, its JWKS served on loopback
const ISSUER = "https://issuer.test";
const AUDIENCE = "bizdata-test-api";
let server: Server;
let jwksHits = 0;
let privateKey: CryptoKey;
let publicJwk: JWK;
let otherKey: CryptoKey;
let app: ReturnType<typeof createApp>;
let tenantId: string;
let otherTenant: string;

beforeAll(async () => {
  ({ privateKey, publicKey: publicJwk } = await (async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    return {
      privateKey: pair.privateKey,
      publicKey: { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" },
    };
  })());
  otherKey = (await generateKeyPair("ES256")).privateKey;
  server = createServer((_, res) => {
    jwksHits++;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const config = loadConfig({
    LOG_LEVEL: "silent",
    OAUTH_ISSUERS: JSON.stringify([
      { issuer: ISSUER, audience: AUDIENCE, jwksUri: `http://127.0.0.1:${address.port}/jwks`, jwksCooldownSeconds: 0 },
    ]),
  });
  app = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
  tenantId = uniqueTenant("oauth");
  otherTenant = uniqueTenant("oauth-other");
  await createTenant(db, tenantId);
  await createTenant(db, otherTenant);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Claims {
  iss?: string;
  aud?: string;
  tid?: string;
  scope?: string;
  exp?: number;
  nbf?: number;
}

const now = () => Math.floor(Date.now() / 1000);
const token = (
  claims: Claims = {},
  header: { alg?: string; kid?: string; typ?: string } = {},
  key: CryptoKey = privateKey,
) =>
  new SignJWT({ tid: claims.tid ?? tenantId, scope: claims.scope ?? "bizdata.read bizdata.write" })
    .setProtectedHeader({ alg: header.alg ?? "ES256", kid: header.kid ?? "k1", typ: header.typ ?? "at+jwt" })
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject("agent-7")
    .setIssuedAt(now() - 60)
    .setNotBefore(claims.nbf ?? now() - 60)
    .setExpirationTime(claims.exp ?? now() + 600)
    .sign(key);

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("third-party access tokens (OAuth 2.1 resource server)", () => {
  it("accepts a valid delegated token, limited to its scopes", async () => {
    const writer = caller(app, tenantId, await token());
    const created = await writer.request("POST", "/api/Product", { SKU: "OAUTH-1" });
    expect(created.status).toBe(201);
    const reader = caller(app, tenantId, await token({ scope: "bizdata.read" }));
    expect((await reader.request("GET", "/api/Product/$count")).status).toBe(200);
    expect((await reader.request("POST", "/api/Product", { SKU: "OAUTH-2" })).status).toBe(403);
    const none = await caller(app, tenantId, await token({ scope: "email" })).request("GET", "/api/Product");
    expect(none.status).toBe(403);
    expect(none.headers.get("WWW-Authenticate")).toContain('error="insufficient_scope"');
  });

  it("limits a token acting for a local user to the intersection of the user's roles and its scopes", async () => {
    const db = await testDatabase();
    const tenant = uniqueTenant("oauth-user");
    await createTenant(db, tenant);
    await setUser(db, tenant, "agent-7", "a-long-password", ["reader"]);
    // the token grants write, but its user may only read
    const res = await caller(app, tenant, await token({ tid: tenant })).request("POST", "/api/Product", { SKU: "NO" });
    expect(res.status).toBe(403);
    expect((await caller(app, tenant, await token({ tid: tenant })).request("GET", "/api/Product")).status).toBe(200);
  });

  it("keeps a token to its own tenant", async () => {
    const theirs = (await (
      await caller(app, tenantId, await token()).request("POST", "/api/Product", { SKU: "OAUTH-T" })
    ).json()) as { Guid: string };
    const other = caller(app, otherTenant, await token({ tid: otherTenant }));
    expect((await other.request("GET", `/api/Product(${theirs.Guid})`)).status).toBe(404);
  });

  const cases: [string, () => Promise<string>][] = [
    [
      "alg none",
      async () =>
        `${b64({ alg: "none", typ: "at+jwt" })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: "x", tid: tenantId, scope: "bizdata.read", exp: now() + 600 })}.`,
    ],
    [
      "HS256 signed with the public key as secret",
      async () =>
        new SignJWT({ tid: tenantId, scope: "bizdata.read" })
          .setProtectedHeader({ alg: "HS256", kid: "k1", typ: "at+jwt" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setSubject("x")
          .setExpirationTime(now() + 600)
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
    ],
    ["a wrong signature", () => token({}, {}, otherKey)],
    ["a wrong issuer", () => token({ iss: "https://evil.test" })],
    ["a wrong audience", () => token({ aud: "someone-else" })],
    ["an expired token", () => token({ exp: now() - 120 })],
    ["a token not yet valid", () => token({ nbf: now() + 600 })],
    ["an unknown kid", () => token({}, { kid: "k-unknown" })],
    ["a token without typ at+jwt", () => token({}, { typ: "JWT" })],
  ];
  it.each(cases)("rejects %s with 401, saying nothing more", async (_, make) => {
    const res = await caller(app, tenantId, await make()).request("GET", "/api/Product");
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe("The access token is invalid or has expired.");
    expect(res.headers.get("WWW-Authenticate")).toContain(
      'resource_metadata="http://localhost/.well-known/oauth-protected-resource"',
    );
  });

  it("fetches the issuer's keys again when a token names a new kid (key rotation)", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const rotated = { ...(await exportJWK(pair.publicKey)), kid: "k2", alg: "ES256" };
    const previous = publicJwk;
    publicJwk = rotated;
    try {
      const before = jwksHits;
      const res = await caller(app, tenantId, await token({}, { kid: "k2" }, pair.privateKey)).request(
        "GET",
        "/api/Product",
      );
      expect(res.status).toBe(200);
      expect(jwksHits).toBe(before + 1);
    } finally {
      publicJwk = previous;
    }
  });

  it("refuses a token in the query string", async () => {
    const res = await app.request(`/api/Product?access_token=${await token()}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_request"');
  });

  it("publishes protected-resource metadata (RFC 9728)", async () => {
    const res = await app.request("/.well-known/oauth-protected-resource");
    expect(await res.json()).toEqual({
      resource: "http://localhost/api",
      authorization_servers: [ISSUER],
      scopes_supported: ["bizdata.read", "bizdata.write"],
      bearer_methods_supported: ["header"],
      resource_name: "bizdata API",
    });
  });
});
