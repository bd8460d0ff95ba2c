import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineModel, openDatabase } from "@bizdata/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BizdataConfig } from "./bizdata-config.js";
import { loadConfig } from "./config.js";
import { startHost } from "./server.js";

const postgresUrl = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;

/** an application whose seed records its calls and creates the demo tenant */
function demoApp(): BizdataConfig & { readonly seeded: (readonly string[])[] } {
  const seeded: (readonly string[])[] = [];
  return {
    model: defineModel([]),
    seeded,
    async seed(admin, args) {
      seeded.push(args);
      await admin.createTenant("demo-start");
      await admin.setUser("demo-start", "demo", "demo", ["admin"]);
    },
    demo: { signIns: [{ tenant: "demo-start", username: "demo", password: "demo" }] },
  };
}

const hostConfig = (databaseUrl: string | undefined, dataDir: string) => ({
  ...loadConfig({ LOG_LEVEL: "silent", PORT: "0", DATA_DIR: dataDir }),
  databaseUrl,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("startHost", () => {
  it("seeds the demo set into an empty embedded database once, and prints its sign-ins at every embedded start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "bizdata-start-"));
    const printed = vi.spyOn(console, "log").mockImplementation(() => {});
    const app = demoApp();
    try {
      for (let start = 0; start < 2; start++) {
        const host = await startHost(hostConfig(undefined, dataDir), app);
        const signIn = await host.app.request("/api/auth/signin", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ TenantId: "demo-start", Username: "demo", Password: "demo" }),
        });
        expect(signIn.status).toBe(200);
        await host.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(app.seeded).toEqual([[]]);
    const banners = printed.mock.calls.map(([text]) => String(text)).filter((text) => text.includes("sign in with"));
    expect(banners).toHaveLength(2);
    expect(banners[0]).toContain("  tenant demo-start: demo / demo");
  }, 60_000);

  it.skipIf(postgresUrl === undefined)("never seeds PostgreSQL, not even an empty database", async () => {
    const admin = await openDatabase({ url: postgresUrl });
    const name = `bizdata_start_${process.pid}_${Date.now()}`;
    await admin.query({ sql: `CREATE DATABASE ${name}`, params: [] });
    const printed = vi.spyOn(console, "log").mockImplementation(() => {});
    const app = demoApp();
    try {
      const url = new URL(postgresUrl!);
      url.pathname = `/${name}`;
      const host = await startHost(hostConfig(url.href, "./unused"), app);
      await host.close();
    } finally {
      await admin.query({ sql: `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, params: [] });
      await admin.close();
    }
    expect(app.seeded).toEqual([]);
    expect(printed.mock.calls.some(([text]) => String(text).includes("sign in with"))).toBe(false);
  });

  it("runs the OAuth server when the application asks for it, at the address it listens on, unless OAUTH_SERVER=off", async () => {
    const app = { model: defineModel([]), oauthServer: true };
    const on = await startHost({ ...hostConfig("memory://", "./unused") }, app);
    try {
      const metadata = await fetch(`${on.url}/.well-known/oauth-authorization-server`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ issuer: on.url, token_endpoint: `${on.url}/api/oauth/token` });
    } finally {
      await on.close();
    }
    const off = await startHost(
      { ...hostConfig("memory://", "./unused"), oauthServer: { enabled: false, publicUrl: undefined } },
      app,
    );
    try {
      expect((await fetch(`${off.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    } finally {
      await off.close();
    }
  }, 60_000);
});
