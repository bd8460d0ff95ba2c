import { randomInt } from "node:crypto";
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { config, fromPeer, PASSWORD, signedInTenant } from "@bizdata/test-kit/host-app";
import { serve } from "@hono/node-server";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../app.js";
import { addressKey } from "../auth/sign-in-throttle.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";

/**
 * An address in the benchmarking range no other test uses, never one given before in this run:
 * two random ones alike made a test expect one throttle row per address and find one for both.
 */
const HOSTS = 256 * 254;
const firstHost = randomInt(HOSTS);
let given = 0;
const someAddress = () => {
  const n = (firstHost + given++) % HOSTS;
  return `198.18.${Math.floor(n / 254)}.${1 + (n % 254)}`;
};

type LogLine = Record<string, any>;

async function appWith(env: Record<string, string>, lines: LogLine[] = []): Promise<App> {
  const db = await testDatabase();
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const { proxies, signInThrottle } = loadConfig(env);
  return createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, proxies, signInThrottle },
    logger,
  });
}

const throttleKeys = async (addresses: string[]) => {
  const rows = await (await testDatabase()).query<{ key: string }>({
    sql: "SELECT key FROM bizdata_signin_throttle WHERE key = ANY($1::text[])",
    params: [addresses.map(addressKey)],
  });
  return rows.map((r) => r.key).sort();
};

let tenantId: string;
beforeAll(async () => {
  ({
    admin: { tenantId },
  } = await signedInTenant("proxy"));
});

const signIn = (app: App, password: string, headers: Record<string, string>, peer: string) =>
  app.request(
    "/api/auth/signin",
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ TenantId: tenantId, Username: "reader", Password: password }),
    },
    fromPeer(peer),
  );

describe("sign-in throttling behind a proxy", () => {
  it("counts a failure against the forwarded address only when the peer is a trusted proxy", async () => {
    const app = await appWith({ TRUSTED_PROXIES: "10.0.0.0/8" });
    const [forwardedByProxy, forwardedByStranger, stranger] = [someAddress(), someAddress(), someAddress()];
    expect((await signIn(app, "wrong", { "X-Forwarded-For": forwardedByProxy }, "10.1.2.3")).status).toBe(401);
    expect((await signIn(app, "wrong", { "X-Forwarded-For": forwardedByStranger }, stranger)).status).toBe(401);
    expect(await throttleKeys([forwardedByProxy, forwardedByStranger, stranger, "10.1.2.3"])).toEqual(
      [addressKey(forwardedByProxy), addressKey(stranger)].sort(),
    );
  });

  it("blocks the forwarded address through a trusted proxy, and nobody else behind it", async () => {
    // two failures block an address, for longer than the test takes
    const app = await appWith({
      TRUSTED_PROXIES: "10.0.0.0/8",
      PROXY_HEADER: "forwarded",
      SIGNIN_THROTTLE_ADDRESS_FAILURES: "2",
      SIGNIN_THROTTLE_FIRST_DELAY_S: "600",
    });
    const blocked = someAddress();
    for (let i = 0; i < 2; i++) expect((await signIn(app, "wrong", {}, blocked)).status).toBe(401);
    const cases: [string, Record<string, string>, number][] = [
      // peer, headers → status for the right password
      ["10.0.0.1", { Forwarded: `for=${blocked}` }, 429],
      ["10.0.0.1", { Forwarded: `for="${blocked}:4711";proto=https` }, 429],
      ["10.0.0.1", { Forwarded: `for=${blocked}, for=10.0.0.2` }, 429],
      ["10.0.0.1", { Forwarded: `for=${someAddress()}` }, 200],
      // the blocked address claimed by the client itself, left of the proxy's entry
      ["10.0.0.1", { Forwarded: `for=${blocked}, for=${someAddress()}` }, 200],
      // the header this host is not told to read
      ["10.0.0.1", { "X-Forwarded-For": blocked }, 200],
      // an untrusted peer's claim
      [someAddress(), { Forwarded: `for=${blocked}` }, 200],
      // the blocked client itself, connected directly
      [blocked, {}, 429],
      [`::ffff:${blocked}`, {}, 429],
    ];
    for (const [peer, headers, status] of cases) {
      expect((await signIn(app, PASSWORD, headers, peer)).status, `${peer} ${JSON.stringify(headers)}`).toBe(status);
    }
  });
});

describe("the client address in the request log, over a real connection", () => {
  it("is the forwarded address when the proxy on loopback is trusted, and the peer otherwise", async () => {
    // loopback's count lasts a day, across runs on one PostgreSQL database: this test's failure starts it
    await (await testDatabase()).query({
      sql: "DELETE FROM bizdata_signin_throttle WHERE key = $1",
      params: [addressKey("127.0.0.1")],
    });
    for (const [trusted, expected] of [
      ["loopback", "forwarded"],
      ["", "peer"],
    ] as const) {
      const lines: LogLine[] = [];
      const app = await appWith({ TRUSTED_PROXIES: trusted }, lines);
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
      });
      try {
        const { port } = server.address() as { port: number };
        const forwarded = someAddress();
        const res = await fetch(`http://127.0.0.1:${port}/api/auth/signin`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": forwarded, "X-Request-Id": "via-proxy" },
          body: JSON.stringify({ TenantId: tenantId, Username: "reader", Password: "wrong" }),
        });
        expect(res.status).toBe(401);
        const client = expected === "forwarded" ? forwarded : "127.0.0.1";
        expect(lines.find((l) => l.reqId === "via-proxy")).toMatchObject({ msg: "request", status: 401, client });
        expect(await throttleKeys([client])).toEqual([addressKey(client)]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });
});
