/**
 * A tenant over its share of the database work waits in its own queue or gets 429 TenantBusy,
 * while another tenant's reads go by. A tenant's requests are held inside their transactions by a
 * gate the test opens: a held request holds its place for as long as the test wants, on either
 * driver, with no timing in what is asserted.
 */

import type { Database } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { TenantShare } from "./tenant-share.js";

/** `db` whose transactions for the held tenant wait, once they started, until `release` */
function gated(db: Database) {
  let held: string | undefined;
  let open = () => {};
  let gate = Promise.resolve();
  const arrived = { count: 0 };
  const gatedDb: Database = {
    driver: db.driver,
    store: db.store,
    query: (statement) => db.query(statement),
    transaction: async (fn, options) => {
      if (held !== undefined && options?.tenant === held) {
        arrived.count++;
        await gate;
      }
      return db.transaction(fn, options);
    },
    close: () => db.close(),
    stats: () => db.stats(),
  };
  return {
    db: gatedDb,
    arrived,
    hold(tenant: string) {
      held = tenant;
      arrived.count = 0;
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release() {
      held = undefined;
      open();
    },
  };
}

/** an app whose tenants get `perTenant` places (a pool of twice that, the default share) */
async function sharedApp(settings: { poolSize: number; queue: number; waitMs: number }) {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const gate = gated(db);
  const config = loadConfig({
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_TOKEN: "0",
    // a token's grant read once, before any gate closes (the read is a transaction of the tenant too)
    GRANT_CACHE_MS: "60000",
    DATABASE_POOL_SIZE: String(settings.poolSize),
    DATABASE_TENANT_QUEUE: String(settings.queue),
    DATABASE_TENANT_WAIT_MS: String(settings.waitMs),
  });
  const share = new TenantShare(config.tenantShare);
  const app = createApp({
    db: gate.db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config,
    tenantShare: share,
  });
  const tenant = async (label: string): Promise<Caller> => {
    const tenantId = uniqueTenant(label);
    await createTenant(db, tenantId);
    await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
    const who = caller(app, tenantId, await signIn(app, tenantId, "admin"));
    expect((await who.request("GET", "/api/Product/$count")).status).toBe(200);
    return who;
  };
  return { gate, share, tenant };
}

const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe("the tenant share", () => {
  let busy: Caller;
  let other: Caller;
  let gate: ReturnType<typeof gated>;
  let share: TenantShare;

  beforeAll(async () => {
    const made = await sharedApp({ poolSize: 4, queue: 28, waitMs: 600_000 });
    ({ gate, share } = made);
    busy = await made.tenant("busy");
    other = await made.tenant("other");
    expect((await busy.request("POST", "/api/Product", { SKU: "S-1", Price: 1 })).status).toBe(201);
    expect((await other.request("POST", "/api/Product", { SKU: "S-2", Price: 2 })).status).toBe(201);
  });

  it("serves a tenant's share, queues the next ones, refuses the rest and lets another tenant's reads by", async () => {
    expect(share.settings.perTenant).toBe(2);
    gate.hold(busy.tenantId);
    const held = [busy.request("GET", "/api/Product"), busy.request("GET", "/api/Product")];
    await vi.waitFor(() => expect(gate.arrived.count).toBe(2));
    const queued = Array.from({ length: 28 }, () => busy.request("GET", "/api/Product"));
    await vi.waitFor(() => expect(share.load(busy.tenantId)).toEqual({ busy: 2, waiting: 28 }));

    // the queue is full: 30 more of the busy tenant are refused at once, naming the setting
    const refused = await Promise.all(Array.from({ length: 30 }, () => busy.request("GET", "/api/Product")));
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.headers.get("Retry-After")).toBe("1");
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("TenantBusy");
      expect(body.error.message).toContain("DATABASE_TENANT_QUEUE");
    }
    // while the busy tenant holds its places, another tenant's 30 reads are all answered (2 at
    // once, the others in that tenant's own queue)
    const reads = await Promise.all(Array.from({ length: 30 }, () => other.request("GET", "/api/Product?$select=SKU")));
    for (const res of reads) expect(res.status).toBe(200);
    const { value } = (await reads[0]!.json()) as { value: { SKU: string }[] };
    expect(value.map((p) => p.SKU)).toEqual(["S-2"]);
    // nothing of the busy tenant got past its places meanwhile
    expect(gate.arrived.count).toBe(2);
    expect(share.load(busy.tenantId)).toEqual({ busy: 2, waiting: 28 });

    gate.release();
    for (const res of await Promise.all([...held, ...queued])) expect(res.status).toBe(200);
    expect(share.load(busy.tenantId)).toEqual({ busy: 0, waiting: 0 });
  });

  it("holds one place for a $batch for its whole duration: its parts take none of their own", async () => {
    gate.hold(busy.tenantId);
    const get = (id: string) => ({ id, method: "GET", url: "Product?$select=SKU" });
    const batch = busy.request("POST", "/api/$batch", { requests: [get("1"), get("2"), get("3")] });
    await vi.waitFor(() => expect(gate.arrived.count).toBe(1));
    const single = busy.request("GET", "/api/Product");
    await vi.waitFor(() => expect(gate.arrived.count).toBe(2));
    // the batch and the single read: two places, whatever the batch's parts do
    expect(share.load(busy.tenantId)).toEqual({ busy: 2, waiting: 0 });
    const third = busy.request("GET", "/api/Product");
    await vi.waitFor(() => expect(share.load(busy.tenantId)).toEqual({ busy: 2, waiting: 1 }));
    gate.release();
    const answered = await batch;
    expect(answered.status).toBe(200);
    const parts = ((await answered.json()) as { responses: { status: number }[] }).responses;
    expect(parts.map((p) => p.status)).toEqual([200, 200, 200]);
    expect((await single).status).toBe(200);
    expect((await third).status).toBe(200);
  });
});

describe("a tenant's wait for a place", () => {
  it("ends in 429 TenantBusy after DATABASE_TENANT_WAIT_MS, never having run", async () => {
    const { gate, share, tenant } = await sharedApp({ poolSize: 1, queue: 10, waitMs: 50 });
    const busy = await tenant("wait");
    const other = await tenant("free");
    expect(share.settings.perTenant).toBe(1);
    gate.hold(busy.tenantId);
    const held = busy.request("GET", "/api/Product");
    await vi.waitFor(() => expect(gate.arrived.count).toBe(1));
    const waited = await busy.request("POST", "/api/Product", { SKU: "W-1", Price: 1 });
    expect(waited.status).toBe(429);
    expect(waited.headers.get("Retry-After")).toBe("1");
    expect(await code(waited)).toBe("TenantBusy");
    expect(gate.arrived.count).toBe(1);
    // one place per tenant: another tenant's is its own
    expect((await other.request("GET", "/api/Product")).status).toBe(200);
    gate.release();
    expect((await held).status).toBe(200);
    // the refused create stored nothing
    const list = (await (await busy.request("GET", "/api/Product")).json()) as { value: unknown[] };
    expect(list.value).toEqual([]);
  });
});
