import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineModel, entity, openDatabase, text } from "@bizdata/core";
import { missingPgbouncer, startPgbouncer } from "@bizdata/test-kit/pgbouncer";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BizdataConfig } from "./bizdata-config.js";
import { loadConfig } from "./config.js";
import { startHost } from "./server.js";

const postgresUrl = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;
const pgbouncerMissing = postgresUrl ? await missingPgbouncer() : undefined;
if (pgbouncerMissing) console.warn(`skipping the start behind PgBouncer: ${pgbouncerMissing}`);

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

  // PgBouncer in transaction mode (packages/test-kit/src/pgbouncer.ts): a session's state would be another client's
  it.skipIf(postgresUrl === undefined || pgbouncerMissing !== undefined)(
    "refuses to start behind a transaction pooler with DATABASE_POOLER=session, and serves there by default",
    async () => {
      const pgbouncer = await startPgbouncer(postgresUrl!);
      try {
        const config = (pooler: string) => ({
          ...loadConfig({ LOG_LEVEL: "silent", PORT: "0", DATABASE_POOLER: pooler }),
          databaseUrl: pgbouncer.url(),
        });
        await expect(startHost(config("session"), demoApp())).rejects.toThrow(
          /DATABASE_POOLER=session behind a connection pooler/,
        );
        const host = await startHost(config("auto"), demoApp());
        try {
          expect((await fetch(`${host.url}/health/ready`)).status).toBe(200);
        } finally {
          await host.close();
        }
      } finally {
        await pgbouncer.stop();
      }
    },
  );

  it("warns at start of the tenant columns migrate left in the database's collation, into the logger it is given", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "bizdata-start-"));
    const gadget = (name: string) => entity(name, { naturalKey: "Code", fields: { Code: text({ required: true }) } });
    const app = { model: defineModel([gadget("StartGizmo"), gadget("StartWidget"), gadget("StartPart")]) };
    try {
      await (await startHost(hostConfig(undefined, dataDir), app)).close();
      // the tables as a version before made them: tenant columns in the database's collation
      const db = await openDatabase({ dataDir });
      for (const table of ["start_gizmo", "start_widget", "start_part"]) {
        await db.query({ sql: `DROP POLICY ${table}_tenant ON ${table}`, params: [] });
        await db.query({ sql: `ALTER TABLE ${table} ALTER COLUMN tenant_id TYPE text COLLATE "default"`, params: [] });
      }
      // two that the planner counts as large, and one that a view and a policy of the application's own use
      await db.query({
        sql: "UPDATE pg_class SET reltuples = 250000 WHERE relname IN ('start_gizmo', 'start_widget')",
        params: [],
      });
      await db.query({ sql: "CREATE VIEW start_part_codes AS SELECT tenant_id, code FROM start_part", params: [] });
      await db.query({
        sql: "CREATE POLICY start_part_audit ON start_part AS RESTRICTIVE USING (tenant_id <> '')",
        params: [],
      });
      await db.close();

      const lines: { level: number; msg: string }[] = [];
      const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      await (await startHost(hostConfig(undefined, dataDir), app, { logger })).close();
      expect(lines.filter((line) => line.level >= 40).map((line) => line.msg)).toEqual([
        "start_part keeps its tenant column in the database's collation, since policy start_part_audit and view start_part_codes of your own use it: drop them, run `bizdata migrate`, and make them again.",
        "2 large tables keep their tenant column in the database's collation (start_gizmo, start_widget), which costs PostgreSQL more per statement than the byte order migrate gives new tables. Converting rebuilds a table's indexes under an exclusive lock: run `bizdata migrate --convert-large-tables` at a quiet hour.",
      ]);
      // the rest of the host's lines went there too
      expect(lines.map((line) => line.msg)).toContain("listening");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("answers 408 and closes a connection whose headers do not arrive within HTTP_HEADERS_TIMEOUT_MS", async () => {
    // Node's own defaults held such a connection for about 84 s: past this test's timeout
    const config = { ...hostConfig("memory://", "./unused"), http: { headersTimeout: 1000, requestTimeout: 2000 } };
    const host = await startHost(config, { model: defineModel([]) });
    try {
      const { port } = new URL(host.url);
      const answer = await new Promise<string>((resolve, reject) => {
        let received = "";
        const socket = connect(Number(port), "127.0.0.1", () => socket.write("GET /health HTTP/1.1\r\nHost: x\r\n"));
        socket.on("data", (chunk) => (received += chunk));
        socket.on("error", reject);
        socket.on("close", () => resolve(received));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await host.close();
    }
  }, 30_000);

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
