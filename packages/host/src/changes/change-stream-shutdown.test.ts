/**
 * A host shutting down (startHost's close, as on SIGTERM) with change streams open: it ends them
 * cleanly instead of waiting the grace period out for them, and their clients resume on the next
 * host with their last event id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleModel } from "@bizdata/examples";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { EventReader } from "@bizdata/test-kit/event-stream";
import pino from "pino";
import { expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { startHost } from "../server.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

it("ends its change streams when it shuts down, and the client resumes on the next host", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bizdata-streams-"));
  const config = {
    ...loadConfig({ LOG_LEVEL: "silent", PORT: "0", DATA_DIR: dataDir, CHANGE_STREAM_POLL_INTERVAL: "20" }),
    databaseUrl: process.env.DATABASE_URL || undefined,
  };
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
  const tenantId = uniqueTenant("shut");
  /** a host, and requests to it as the tenant's admin */
  const start = async () => {
    const host = await startHost(config, { model: sampleModel }, { logger });
    const signIn = await fetch(`${host.url}/api/auth/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: tenantId, Username: "admin", Password: "secret-secret" }),
    });
    const { access_token } = (await signIn.json()) as { access_token: string };
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${host.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json", ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    return { host, call };
  };
  const created = async (call: Awaited<ReturnType<typeof start>>["call"], sku: string) => {
    const res = await call("POST", "/api/Product", { SKU: sku, Price: 1 });
    expect(res.status).toBe(201);
    return ((await res.json()) as { Guid: string }).Guid;
  };
  try {
    // the tenant, in the database a first start migrated
    const setUp = await startHost(config, { model: sampleModel }, { logger });
    await createTenant(setUp.db, tenantId);
    await setUser(setUp.db, tenantId, "admin", "secret-secret", ["admin"]);
    await setUp.close();

    const first = await start();
    const stream = new EventReader(await first.call("GET", "/api/$changes?entities=Product"));
    await stream.next();
    await created(first.call, "SHUT-1");
    const [seen] = await stream.changes(1);
    // a grace period far longer than the test: the drain must not wait for the stream
    await first.host.close(600_000);
    expect(await stream.rest()).toEqual([]);
    expect(warnings).toEqual([]);

    const next = await start();
    const missed = await created(next.call, "SHUT-2");
    const resumed = new EventReader(
      await next.call("GET", "/api/$changes?entities=Product", undefined, { "Last-Event-ID": seen!.id }),
    );
    expect((await resumed.changes(1)).map((e) => e.data.key)).toEqual([missed]);
    await resumed.cancel();
    await next.host.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
