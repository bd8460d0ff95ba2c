/**
 * Sign-in throttling through `POST /api/auth/signin` of two hosts on one database (on PostgreSQL
 * two pools, as two host processes have; on PGlite two apps over the one embedded database):
 * simultaneous guesses, the pair, address and account limits, the owner signing in from
 * elsewhere while an attacker's address is blocked. A block's end is simulated by moving it into
 * the past in the database, never waited for.
 */
import { randomInt } from "node:crypto";
import { type Database, openDatabase } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { config, fromPeer, PASSWORD, testApp } from "@bizdata/test-kit/host-app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../app.js";
import { loadConfig } from "../config.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { admitAttempt, attemptKeys, defaultThrottle, sweepForgotten } from "./sign-in-throttle.js";
import { loadSigningKeys } from "./signing-keys.js";

/** addresses in the benchmarking range, a new one each call, unlikely to repeat across runs on one database */
const firstHost = randomInt(256 * 254);
let given = 0;
const someAddress = () => {
  const n = (firstHost + given++) % (256 * 254);
  return `198.19.${Math.floor(n / 254)}.${1 + (n % 254)}`;
};

let db: Database;
let second: Database | undefined;
/** two hosts whose first block lasts 10 minutes, so that no block ends while a test runs */
let hosts: [App, App];

beforeAll(async () => {
  db = await testDatabase();
  await testApp();
  const url = process.env.DATABASE_URL;
  second = url ? await openDatabase({ url }) : undefined;
  const settings = {
    ...config,
    signInThrottle: loadConfig({ SIGNIN_THROTTLE_FIRST_DELAY_S: "600", SIGNIN_THROTTLE_ACCOUNT_MAX_DELAY_S: "60" })
      .signInThrottle,
  };
  const host = async (on: Database) =>
    createApp({ db: on, model: sampleModel, keys: await loadSigningKeys(on), config: settings });
  hosts = [await host(db), await host(second ?? db)];
});

afterAll(async () => {
  await second?.close();
});

async function owner(): Promise<string> {
  const tenantId = uniqueTenant("throttle");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "owner", PASSWORD, ["admin"]);
  return tenantId;
}

const signIn = (tenantId: string, password: string, address: string, host = 0, username = "owner") =>
  hosts[host]!.request(
    "/api/auth/signin",
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: tenantId, Username: username, Password: password }),
    },
    fromPeer(address),
  );

const failuresOf = async (key: string) => {
  const [row] = await db.query<{ failures: number }>({
    sql: "SELECT failures FROM bizdata_signin_throttle WHERE key = $1",
    params: [key],
  });
  return row?.failures;
};

/** seconds from a key's last failure to the end of its block */
const blockOf = async (key: string) => {
  const [row] = await db.query<{ seconds: number }>({
    sql: "SELECT extract(epoch FROM blocked_until - last_failure_at)::int AS seconds FROM bizdata_signin_throttle WHERE key = $1",
    params: [key],
  });
  return row === undefined ? undefined : Number(row.seconds);
};

/** the end of a key's block, and its last failure, moved `seconds` into the past */
const moveBack = (key: string, seconds: number) =>
  db.query({
    sql: `UPDATE bizdata_signin_throttle SET blocked_until = blocked_until - make_interval(secs => $2),
      last_failure_at = last_failure_at - make_interval(secs => $2) WHERE key = $1`,
    params: [key, seconds],
  });

const statuses = (responses: Response[]) => {
  const count: Record<number, number> = {};
  for (const res of responses) count[res.status] = (count[res.status] ?? 0) + 1;
  return count;
};

describe("30 simultaneous wrong sign-ins against two hosts on one database", () => {
  it("checks only as many as the pair's limit allows: 5 answers 401, 25 answer 429 with Retry-After", async () => {
    const tenantId = await owner();
    const attacker = someAddress();
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signIn(tenantId, `guess-${i}`, attacker, i % 2)),
    );
    expect(statuses(burst)).toEqual({ 401: 5, 429: 25 });
    for (const res of burst.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThan(500);
      expect(((await res.json()) as any).error.code).toBe("TooManyAttempts");
    }
    // every checked guess counted once, on the pair, the address and the account
    const keys = attemptKeys(defaultThrottle, tenantId, "owner", attacker).map((k) => k.key);
    const [pair, address, account] = ["pair:", "address:", "account:"].map((kind) =>
      keys.find((k) => k.startsWith(kind)),
    );
    expect([await failuresOf(pair!), await failuresOf(address!), await failuresOf(account!)]).toEqual([5, 5, 5]);
    // the right password from the attacker's address does not get through either, on both hosts
    expect((await signIn(tenantId, PASSWORD, attacker, 0)).status).toBe(429);
    expect((await signIn(tenantId, PASSWORD, attacker, 1)).status).toBe(429);
    // while the owner, from another address, signs in on either host
    expect((await signIn(tenantId, PASSWORD, someAddress(), 1)).status).toBe(200);
    expect((await signIn(tenantId, PASSWORD, someAddress(), 0)).status).toBe(200);
    // the right password among simultaneous guesses from a blocked address: all refused
    const mixed = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signIn(tenantId, i === 29 ? PASSWORD : "guess", attacker, i % 2)),
    );
    expect(statuses(mixed)).toEqual({ 429: 30 });
  });
});

describe("the address limit", () => {
  it("blocks an address after 20 failures at any accounts, and no other address", async () => {
    const tenantId = await owner();
    const attacker = someAddress();
    // 4 guesses at each of 5 accounts: no pair reaches its limit, the address does
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signIn(tenantId, "guess", attacker, i % 2, `user-${i % 5}`)),
    );
    expect(statuses(guesses)).toEqual({ 401: 20 });
    const blocked = await signIn(tenantId, PASSWORD, attacker, 0);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(500);
    expect((await signIn(tenantId, PASSWORD, someAddress(), 1)).status).toBe(200);
  });

  it("does not count people who sign in: 25 right sign-ins from one address all get through", async () => {
    const tenantId = await owner();
    const office = someAddress();
    for (let i = 0; i < 25; i++) expect((await signIn(tenantId, PASSWORD, office, i % 2)).status).toBe(200);
  });
});

describe("the account ceiling across addresses", () => {
  it("is a delay that doubles up to its cap (60 s), not a wall: the owner gets in once it ends", async () => {
    const tenantId = await owner();
    const [account] = attemptKeys(defaultThrottle, tenantId, "owner", undefined);
    // 10 guesses from 10 addresses: each pair and address far from its limit, the account at its own
    const spread = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signIn(tenantId, "guess", someAddress(), i % 2)),
    );
    expect(statuses(spread)).toEqual({ 401: 10 });
    const slowed = await signIn(tenantId, PASSWORD, someAddress(), 0);
    expect(slowed.status).toBe(429);
    const wait = Number(slowed.headers.get("Retry-After"));
    // the 10-minute first delay is cut to the account's cap
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // once the delay is over, one more guess blocks the account again, still for no more than its cap
    await moveBack(account!.key, 61);
    expect((await signIn(tenantId, "guess", someAddress(), 1)).status).toBe(401);
    const again = await signIn(tenantId, PASSWORD, someAddress(), 0);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
    await moveBack(account!.key, 61);
    // the owner signs in, which clears the account's count
    expect((await signIn(tenantId, PASSWORD, someAddress(), 1)).status).toBe(200);
    expect(await failuresOf(account!.key)).toBeUndefined();
  });
});

describe("counting in the database", () => {
  it("doubles each block past the limit and forgets a count a day after its last failure", async () => {
    const settings = { ...defaultThrottle, firstDelay: 10 };
    const keys = attemptKeys(settings, uniqueTenant("count"), "someone", someAddress());
    const pair = keys.find((k) => k.key.startsWith("pair:"))!.key;
    // failures 1-4 block nothing
    for (let i = 0; i < 4; i++) expect(await admitAttempt(db, keys, settings)).toEqual({ allowed: true });
    // the 5th blocks for 10 s, the 6th for 20 s, the 7th for 40 s; a refused attempt counts nothing
    for (const seconds of [10, 20, 40]) {
      expect(await admitAttempt(db, keys, settings)).toEqual({ allowed: true });
      const refused = await admitAttempt(db, keys, settings);
      expect(refused.allowed).toBe(false);
      // the block as stored (Retry-After counts down from it while the test runs)
      expect(await blockOf(pair)).toBe(seconds);
      await moveBack(pair, 1000);
    }
    expect(await failuresOf(pair)).toBe(7);
    // a day later the count starts again
    await moveBack(pair, settings.resetAfter);
    expect(await admitAttempt(db, keys, settings)).toEqual({ allowed: true });
    expect(await failuresOf(pair)).toBe(1);
    expect((await admitAttempt(db, keys, settings)).allowed).toBe(true);
  });

  it("deletes the rows of forgotten counts whose block is over, and keeps the others", async () => {
    const settings = { ...defaultThrottle, firstDelay: 10 };
    const [forgotten, recent] = [someAddress(), someAddress()].map(
      (address) => attemptKeys(settings, uniqueTenant("sweep"), "someone", address)[0]!,
    );
    for (const key of [forgotten!, recent!]) await admitAttempt(db, [key], settings);
    await moveBack(forgotten!.key, settings.resetAfter + 1);
    await sweepForgotten(db, settings);
    expect(await failuresOf(forgotten!.key)).toBeUndefined();
    expect(await failuresOf(recent!.key)).toBe(1);
  });
});
