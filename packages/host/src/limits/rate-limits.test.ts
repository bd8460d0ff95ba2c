/**
 * Rate limits per access token and per client address, through the host's app: over the limit a
 * request answers 429 RateLimited with Retry-After and the RateLimit headers, another token or
 * address is not touched, and two hosts on one database share their counts once they flushed
 * (each test flushes by hand; the hosts' own flushes, every second, only share sooner).
 */
import { createHash, randomInt } from "node:crypto";
import type { Database, Statement } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { fromPeer, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { RateLimits } from "./rate-limits.js";

type App = ReturnType<typeof createApp>;

/** a host on the test database whose limits are `perToken` and `perAddress` requests a minute */
async function host(perToken: number, perAddress: number) {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const config = loadConfig({
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_TOKEN: String(perToken),
    RATE_LIMIT_PER_ADDRESS: String(perAddress),
  });
  const limits = new RateLimits(db, config.rateLimits);
  const app = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config, rateLimits: limits });
  return { app, limits };
}

/** a new tenant's admin and reader, and their tokens from `app` */
async function users(app: App) {
  const db = await testDatabase();
  const tenantId = uniqueTenant("rate");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  await setUser(db, tenantId, "reader", PASSWORD, ["reader"]);
  return { admin: await signIn(app, tenantId, "admin"), reader: await signIn(app, tenantId, "reader") };
}

/** GET of a collection with `token` (none: no Authorization), from `address` when given */
const read = (app: App, token: string | undefined, address?: string) =>
  app.request(
    "/api/Product?$top=1",
    { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } },
    address === undefined ? undefined : fromPeer(address),
  );

/** an address of the documentation range no other test uses */
const someAddress = () => `198.51.${randomInt(256)}.${randomInt(256)}`;

const statuses = (responses: Response[]) => responses.map((r) => r.status);

describe("the rate limit per token", () => {
  let one: Awaited<ReturnType<typeof host>>;
  beforeAll(async () => {
    one = await host(5, 0);
  });

  it("answers 429 RateLimited past the limit, saying when to retry, and leaves another token alone", async () => {
    const { admin, reader } = await users(one.app);
    for (let i = 0; i < 5; i++) expect((await read(one.app, admin)).status).toBe(200);
    const refused = await read(one.app, admin);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("RateLimit-Policy")).toBe('"token";q=5;w=60');
    expect(refused.headers.get("RateLimit")).toBe(`"token";r=0;t=${retryAfter}`);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("RateLimited");
    expect(body.error.message).toContain("RATE_LIMIT_PER_TOKEN");
    // the same user's other session, and another user, count on their own
    expect((await read(one.app, reader)).status).toBe(200);
  });

  it("lets exactly the limit of 30 simultaneous requests through", async () => {
    const { admin } = await users(one.app);
    const answered = statuses(await Promise.all(Array.from({ length: 30 }, () => read(one.app, admin))));
    expect(answered.filter((s) => s === 200)).toHaveLength(5);
    expect(answered.filter((s) => s === 429)).toHaveLength(25);
  });

  it("counts a $batch once, whatever its parts", async () => {
    const { admin } = await users(one.app);
    const parts = Array.from({ length: 8 }, (_, i) => ({ id: String(i), method: "GET", url: "Product?$top=1" }));
    const batch = await one.app.request("/api/$batch", {
      method: "POST",
      headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
      body: JSON.stringify({ requests: parts }),
    });
    expect(batch.status).toBe(200);
    const answered = ((await batch.json()) as { responses: { status: number }[] }).responses;
    expect(statuses(answered as unknown as Response[])).toEqual(parts.map(() => 200));
    for (let i = 0; i < 4; i++) expect((await read(one.app, admin)).status).toBe(200);
    expect((await read(one.app, admin)).status).toBe(429);
  });
});

describe("the rate limit per address", () => {
  it("limits every request from an address, with or without a valid token, and no other address", async () => {
    const { app } = await host(0, 8);
    const { admin } = await users(app);
    const address = someAddress();
    const answered = [];
    for (let i = 0; i < 4; i++) answered.push((await read(app, admin, address)).status);
    for (let i = 0; i < 4; i++) answered.push((await read(app, undefined, address)).status);
    expect(answered).toEqual([200, 200, 200, 200, 401, 401, 401, 401]);
    const refused = await read(app, admin, address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("RateLimit-Policy")).toBe('"address";q=8;w=60');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RateLimited");
    expect((await read(app, admin, someAddress())).status).toBe(200);
  });
});

describe("two hosts on one database", () => {
  it("share a token's count once they flushed", async () => {
    const a = await host(10, 0);
    const b = await host(10, 0);
    const { admin } = await users(a.app);
    for (let i = 0; i < 6; i++) expect((await read(a.app, admin)).status).toBe(200);
    await a.limits.flush();
    // b learns of a's six with its first flush of the token
    expect((await read(b.app, admin)).status).toBe(200);
    await b.limits.flush();
    const onB = [];
    for (let i = 0; i < 4; i++) onB.push((await read(b.app, admin)).status);
    expect(onB).toEqual([200, 200, 200, 429]);
    await b.limits.flush();
    // a, which has not flushed since, admits what it counted alone; its next flush brings b's
    expect((await read(a.app, admin)).status).toBe(200);
    await a.limits.flush();
    expect((await read(a.app, admin)).status).toBe(429);
    // what the hosts share is the token's hash, never the token: 13 requests, the refused ones too
    await a.limits.flush();
    const hash = `token:${createHash("sha256").update(admin).digest("base64url")}`;
    const db = await testDatabase();
    const stored = await db.query<{ key: string; points: number }>({
      sql: "SELECT key, points FROM bizdata_rate_count WHERE key = $1 OR position($2 in key) > 0",
      params: [hash, admin],
    });
    expect(stored).toEqual([{ key: hash, points: 13 }]);
    a.limits.close();
    b.limits.close();
  });

  it("keep what a failed flush counted for the next one", async () => {
    const db = await testDatabase();
    await migrateService(db, sampleModel);
    let fail = true;
    const failing: Database = {
      ...db,
      query: <R>(statement: Statement) => (fail ? Promise.reject(new Error("down")) : db.query<R>(statement)),
    };
    const errors: unknown[] = [];
    const settings = { perToken: 3, perAddress: 0 };
    const first = new RateLimits(failing, settings, (err) => errors.push(err));
    const token = uniqueTenant("token");
    const second = new RateLimits(db, settings);
    await first.byToken(token);
    await first.byToken(token);
    await first.flush();
    expect(errors).toHaveLength(1);
    fail = false;
    await first.flush();
    await second.byToken(token);
    await second.flush();
    await expect(second.byToken(token)).rejects.toMatchObject({ status: 429, code: "RateLimited" });
    first.close();
    second.close();
  });
});
