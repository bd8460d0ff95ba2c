/**
 * The web app's routes (the built files are stand-ins written to a folder: the real build is the
 * browser tests' in @bizdata/web) and `GET /api/auth/me`, which the app reads to show only the
 * controls the caller can use.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { config, signedInTenant, testApp } from "@bizdata/test-kit/host-app";
import { webAppFiles } from "@bizdata/web";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";

const folder = mkdtempSync(join(tmpdir(), "web-app-routes-"));
mkdirSync(join(folder, "assets"));
writeFileSync(join(folder, "index.html"), '<!doctype html><script type="module" src="./assets/app-1.js"></script>');
writeFileSync(join(folder, "assets/app-1.js"), "console.log(1)");
writeFileSync(join(folder, "secret.txt"), "not a file of the app's types");

let app: ReturnType<typeof createApp>;
let unbuilt: ReturnType<typeof createApp>;

beforeAll(async () => {
  // the shared app migrates the test database
  await testApp();
  const db = await testDatabase();
  const keys = await loadSigningKeys(db);
  app = createApp({ db, model: sampleModel, keys, config, webApp: webAppFiles(folder) });
  unbuilt = createApp({ db, model: sampleModel, keys, config, webApp: webAppFiles(join(folder, "nothing")) });
});

describe("the web app at /app/", () => {
  it("serves its page under a policy of its own, and sends /app to /app/", async () => {
    const bare = await app.request("/app?x=1");
    expect([bare.status, bare.headers.get("location")]).toEqual([308, "/app/?x=1"]);
    const page = await app.request("/app/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toMatch(
      /default-src 'none'; script-src 'self'; style-src 'self'/,
    );
    expect(await page.text()).toContain("./assets/app-1.js");
  });

  it("caches hashed assets for good and answers a matching ETag 304", async () => {
    const asset = await app.request("/app/assets/app-1.js");
    expect([asset.status, asset.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const again = await app.request("/app/assets/app-1.js", {
      headers: { "If-None-Match": asset.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("names the service root in config.json (no client id without the OAuth server)", async () => {
    expect(await (await app.request("/app/config.json")).json()).toEqual({ service: "/api" });
  });

  it.each([
    "/app/assets/missing.js",
    "/app/secret.txt",
    "/app/..%2Fpackage.json",
    "/app/assets/..%2F..%2Findex.html",
    "/app/%2e%2e/package.json",
  ])("answers %s 404", async (path) => {
    expect((await app.request(path)).status).toBe(404);
  });

  it("answers 503 naming the build command while the app is not built", async () => {
    const res = await unbuilt.request("/app/");
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/pnpm --filter @bizdata\/web build/);
  });

  it("is not there unless given", async () => {
    const db = await testDatabase();
    const plain = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
    expect((await plain.request("/app/")).status).toBe(404);
  });
});

describe("GET /api/auth/me", () => {
  it("names the tenant, the user and what each may do, the same for 30 requests at once", async () => {
    const { admin, reader } = await signedInTenant("me");
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? admin : reader).request("GET", "/api/auth/me")),
    );
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<any>));
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(bodies[0]).toMatchObject({ tenant: admin.tenantId, user: "admin", roles: ["admin"] });
    expect(bodies[0].entities.SalesOrder).toEqual(["read", "create", "update", "delete"]);
    expect(bodies[0].methods).toEqual(expect.arrayContaining(["Journal.Post", "SalesOrder.CalculateLineTotal"]));
    expect(bodies[1]).toMatchObject({ user: "reader", roles: ["reader"] });
    expect(bodies[1].entities.SalesOrder).toEqual(["read"]);
    expect(bodies[1].methods).toContain("SalesOrder.CalculateLineTotal");
    expect(bodies[1].methods).not.toContain("Journal.Post");
    expect(bodies.filter((_, i) => i % 2 === 0).every((b) => b.user === "admin")).toBe(true);
  });

  it("needs a token", async () => {
    const { app: shared } = await signedInTenant("me-none");
    expect((await shared.request("/api/auth/me")).status).toBe(401);
  });
});
