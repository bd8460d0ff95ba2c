import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, caller, config, PASSWORD, signedInTenant, type testApp } from "@bizdata/test-kit/host-app";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys, rotateSigningKey } from "./signing-keys.js";

let admin: Caller;
let app: Awaited<ReturnType<typeof testApp>>;
beforeAll(async () => {
  ({ admin, app } = await signedInTenant("auth"));
});

const signIn = (body: unknown) =>
  app.request("/api/auth/signin", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("sign-in", () => {
  it("returns an access token, a refresh token, its type and lifetime", async () => {
    const res = await signIn({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: config.auth.accessTokenTtl });
    expect(String(body.access_token).split(".")).toHaveLength(3);
    expect(String(body.refresh_token).startsWith(`${admin.tenantId}.`)).toBe(true);
    const use = await caller(app, admin.tenantId, String(body.access_token)).request("GET", "/api/Product");
    expect(use.status).toBe(200);
  });

  it("answers every wrong part with the same 401 body", async () => {
    const wrong = [
      { TenantId: admin.tenantId, Username: "admin", Password: "nope" },
      { TenantId: admin.tenantId, Username: "nobody", Password: PASSWORD },
      { TenantId: "no-such-tenant", Username: "admin", Password: PASSWORD },
      { TenantId: "not a tenant id!", Username: "admin", Password: PASSWORD },
    ];
    const bodies = new Set<string>();
    for (const body of wrong) {
      const res = await signIn(body);
      expect(res.status).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
  });

  it("rejects a malformed sign-in body with 400", async () => {
    const res = await signIn({ TenantId: admin.tenantId, Username: "admin" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.target).toBe("Password");
  });
});

describe("bearer tokens", () => {
  const cases: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["a non-bearer scheme", { Authorization: "Basic YWRtaW46YWRtaW4=" }],
    ["garbage", { Authorization: "Bearer not.a.token" }],
    ["an empty bearer", { Authorization: "Bearer " }],
  ];
  it.each(cases)("rejects %s with 401 and WWW-Authenticate", async (_, headers) => {
    const res = await app.request("/api/Product", { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="api"/);
    expect(((await res.json()) as any).error.code).toBe("Unauthorized");
  });

  /** the grant of a real sign-in of the admin, which forged tokens name unless told otherwise */
  const realGrant = async () => {
    const res = await signIn({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD });
    const { access_token } = (await res.json()) as { access_token: string };
    return JSON.parse(Buffer.from(access_token.split(".")[1]!, "base64url").toString()).gid as string;
  };

  const forge = async (
    claims: { exp?: number; iss?: string; aud?: string; tid?: string; gid?: string | null },
    kid?: string,
  ) => {
    const keys = await loadSigningKeys(await testDatabase());
    const now = Math.floor(Date.now() / 1000);
    const gid = claims.gid === undefined ? await realGrant() : claims.gid;
    return new SignJWT({ tid: claims.tid ?? admin.tenantId, ...(gid !== null && { gid }) })
      .setProtectedHeader({ alg: "ES256", kid: kid ?? keys.current.kid, typ: "at+jwt" })
      .setSubject("admin")
      .setIssuer(claims.iss ?? config.auth.issuer)
      .setAudience(claims.aud ?? config.auth.audience)
      .setIssuedAt(now - 3600)
      .setExpirationTime(claims.exp ?? now + 600)
      .sign(keys.current.key);
  };

  it("accepts a well-formed token it signed (control for the cases below)", async () => {
    const res = await caller(app, admin.tenantId, await forge({})).request("GET", "/api/Product");
    expect(res.status).toBe(200);
  });

  it.each([
    ["expired", { exp: Math.floor(Date.now() / 1000) - 120 }, undefined],
    ["from another issuer", { iss: "someone-else" }, undefined],
    ["for another audience", { aud: "other-api" }, undefined],
    ["with an unknown key id", {}, "unknown-kid"],
    ["without a grant", { gid: null }, undefined],
    ["naming a grant that was never given", { gid: crypto.randomUUID() }, undefined],
    ["naming a grant that is not a refresh-token family", { gid: "not-a-family" }, undefined],
  ])("rejects a token %s with 401 and says nothing more", async (_, claims, kid) => {
    const res = await caller(app, admin.tenantId, await forge(claims, kid)).request("GET", "/api/Product");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    expect(((await res.json()) as any).error.message).toBe("The access token is invalid or has expired.");
  });

  it("rejects a token whose signature was tampered with", async () => {
    const token = await forge({});
    const [h, p, s] = token.split(".") as [string, string, string];
    const tampered = `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    expect((await caller(app, admin.tenantId, tampered).request("GET", "/api/Product")).status).toBe(401);
  });

  it("rejects an unsigned token (alg none)", async () => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const token = `${b64({ alg: "none", typ: "at+jwt" })}.${b64({ sub: "admin", tid: admin.tenantId, roles: ["admin"], iss: config.auth.issuer, aud: config.auth.audience, exp: now + 600 })}.`;
    expect((await caller(app, admin.tenantId, token).request("GET", "/api/Product")).status).toBe(401);
  });
});

describe("refresh", () => {
  const refresh = (token: string) =>
    app.request("/api/auth/refresh", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refresh_token: token }),
    });

  it("rotates: a refresh token works once, and its reuse revokes the family", async () => {
    const first = (await (
      await signIn({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD })
    ).json()) as any;
    const second = (await (await refresh(first.refresh_token)).json()) as any;
    expect(second.access_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // reuse of the first: refused, and the second (same family) is revoked with it
    expect((await refresh(first.refresh_token)).status).toBe(401);
    expect((await refresh(second.refresh_token)).status).toBe(401);
  });

  it.each(["", "nope", "no-such-tenant.abc", "bad tenant.abc"])("refuses refresh token %j", async (token) => {
    expect([400, 401]).toContain((await refresh(token)).status);
  });
});

describe("signing-key rotation", () => {
  it("keeps tokens of the previous key valid and accepts tokens of a key another host rotated in", async () => {
    const db = await testDatabase();
    const old = (await (
      await signIn({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD })
    ).json()) as any;
    await rotateSigningKey(db);
    // a host started after the rotation signs with the new key
    const fresh = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
    const signedNew = await fresh.request("/api/auth/signin", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: admin.tenantId, Username: "admin", Password: PASSWORD }),
    });
    const fresher = (await signedNew.json()) as any;
    expect(JSON.parse(Buffer.from(fresher.access_token.split(".")[0], "base64url").toString()).kid).not.toBe(
      JSON.parse(Buffer.from(old.access_token.split(".")[0], "base64url").toString()).kid,
    );
    // the old host accepts the new key's token (after its once-a-second reload window); the new host the old key's
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await caller(app, admin.tenantId, fresher.access_token).request("GET", "/api/Product")).status).toBe(200);
    expect((await caller(fresh, admin.tenantId, old.access_token).request("GET", "/api/Product")).status).toBe(200);
    const jwks = (await (await fresh.request("/.well-known/jwks.json")).json()) as { keys: unknown[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(2);
  });
});

describe("a signing key from configuration", () => {
  it("signs with the configured key, which other hosts' stored keys then verify", async () => {
    const db = await testDatabase();
    const pair = await generateKeyPair("ES256", { extractable: true });
    const configured = { ...(await exportJWK(pair.privateKey)), kid: `configured-${Date.now()}` };
    const keys = await loadSigningKeys(db, configured);
    expect(keys.current.kid).toBe(configured.kid);
    expect(keys.jwks.keys.some((k) => k.kid === configured.kid && k.d === undefined)).toBe(true);
    await expect(loadSigningKeys(db, { kty: "EC" })).rejects.toThrow(/kid/);
  });
});
