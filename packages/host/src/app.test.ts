import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { config, testApp } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { loadSigningKeys } from "./auth/signing-keys.js";

describe("app", () => {
  it("answers GET /health without authentication", async () => {
    const res = await (await testApp()).request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("OData-Version")).toBe("4.01");
  });

  it("publishes the public signing keys, never a private part", async () => {
    const jwks = (await (await (await testApp()).request("/.well-known/jwks.json")).json()) as {
      keys: Record<string, unknown>[];
    };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
      expect(key).not.toHaveProperty("d");
    }
  });

  it("routes with Hono's RegExpRouter, with or without the OAuth server", async () => {
    // a fixed path beside a parameter at the same level would leave every request to the slower trie router
    const db = await testDatabase();
    const keys = await loadSigningKeys(db);
    for (const oauthServer of [undefined, { publicUrl: "http://oauth.test" }]) {
      const app = createApp({ db, model: sampleModel, keys, config, ...(oauthServer && { oauthServer }) });
      expect((await app.request("/health")).status).toBe(200);
      expect(app.router.name).toBe("SmartRouter + RegExpRouter");
    }
  });

  it("answers an unknown path with a 404 error body", async () => {
    const res = await (await testApp()).request("/nowhere");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe("NotFound");
  });
});
