/**
 * Password-sign-in access tokens are only as good as their grant and their user, read per request
 * (token-grants.ts): a reused refresh token or a sign-out refuses the family's access tokens, a
 * removed user's token is refused, a demoted user's token has the new roles. `now` keeps nothing
 * (GRANT_CACHE_MS=0), so the next request shows the change; a host that read the grant before
 * keeps it for 5 s, while another host refuses at once.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { config, PASSWORD, testApp } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../app.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { loadSigningKeys } from "./signing-keys.js";

/** reads grants on every request */
let now: App;
/** keeps what it read for 5 s, as a host does by default */
let cached: App;

beforeAll(async () => {
  cached = await testApp();
  const db = await testDatabase();
  now = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, auth: { ...config.auth, grantCacheMs: 0 } },
  });
});

const post = (app: App, path: string, body: unknown) =>
  app.request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

interface Pair {
  readonly access_token: string;
  readonly refresh_token: string;
}

async function user(roles = ["admin"]): Promise<{ tenantId: string; signIn: () => Promise<Pair> }> {
  const tenantId = uniqueTenant("grants");
  await createTenant(await testDatabase(), tenantId);
  await setUser(await testDatabase(), tenantId, "ann", PASSWORD, roles);
  return {
    tenantId,
    signIn: async () => {
      const res = await post(now, "/api/auth/signin", { TenantId: tenantId, Username: "ann", Password: PASSWORD });
      expect(res.status).toBe(200);
      return (await res.json()) as Pair;
    },
  };
}

const read = (app: App, token: string) =>
  app.request("/api/Product", { headers: { Authorization: `Bearer ${token}` } });
const write = (app: App, token: string) =>
  app.request("/api/Product", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ SKU: `G-${crypto.randomUUID().slice(0, 8)}` }),
  });

const refused = async (res: Response) => {
  expect(res.status).toBe(401);
  expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
};

describe("a password sign-in's access tokens", () => {
  it("name the refresh-token family as their grant, the same across a refresh", async () => {
    const { signIn } = await user();
    const first = await signIn();
    const second = (await (
      await post(now, "/api/auth/refresh", { refresh_token: first.refresh_token })
    ).json()) as Pair;
    const gid = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).gid;
    expect(gid(first.access_token)).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(gid(second.access_token)).toBe(gid(first.access_token));
    expect(gid((await signIn()).access_token)).not.toBe(gid(first.access_token));
  });

  it("are refused once a refresh token of their family is used twice, on every host", async () => {
    const { signIn } = await user();
    const first = await signIn();
    const other = await signIn();
    expect((await read(now, first.access_token)).status).toBe(200);
    expect((await read(cached, first.access_token)).status).toBe(200);
    const second = (await (
      await post(now, "/api/auth/refresh", { refresh_token: first.refresh_token })
    ).json()) as Pair;
    expect((await read(now, second.access_token)).status).toBe(200);
    // the reuse: the family is revoked, and with it both access tokens issued under it
    expect((await post(now, "/api/auth/refresh", { refresh_token: first.refresh_token })).status).toBe(401);
    await refused(await read(now, first.access_token));
    await refused(await read(now, second.access_token));
    // a host that never read this grant refuses too (the one that did keeps it at most 5 s)
    const fresh = createApp({
      db: await testDatabase(),
      model: sampleModel,
      keys: await loadSigningKeys(await testDatabase()),
      config,
    });
    await refused(await read(fresh, second.access_token));
    // another sign-in of the same user is another family, untouched
    expect((await read(now, other.access_token)).status).toBe(200);
  });

  it("are refused after sign-out, and so is the refresh token", async () => {
    const { signIn } = await user();
    const pair = await signIn();
    expect((await read(now, pair.access_token)).status).toBe(200);
    const out = await post(now, "/api/auth/signout", { refresh_token: pair.refresh_token });
    expect(out.status).toBe(204);
    await refused(await read(now, pair.access_token));
    expect((await post(now, "/api/auth/refresh", { refresh_token: pair.refresh_token })).status).toBe(401);
    // a token that is no refresh token signs nothing out and is not told apart
    expect((await post(now, "/api/auth/signout", { refresh_token: `${uniqueTenant()}.nothing` })).status).toBe(204);
    expect((await post(now, "/api/auth/signout", {})).status).toBe(400);
  });

  it("are refused once their user is removed", async () => {
    const { tenantId, signIn } = await user();
    const pair = await signIn();
    expect((await read(now, pair.access_token)).status).toBe(200);
    await (await testDatabase()).query({
      sql: "DELETE FROM bizdata_user WHERE tenant_id = $1 AND username = 'ann'",
      params: [tenantId],
    });
    await refused(await read(now, pair.access_token));
    expect((await post(now, "/api/auth/refresh", { refresh_token: pair.refresh_token })).status).toBe(401);
  });

  it("act with the user's roles as stored now: a demoted admin's token can no longer write", async () => {
    const { tenantId, signIn } = await user(["admin"]);
    const pair = await signIn();
    expect((await write(now, pair.access_token)).status).toBe(201);
    await setUser(await testDatabase(), tenantId, "ann", PASSWORD, ["reader"]);
    const demoted = await write(now, pair.access_token);
    expect(demoted.status).toBe(403);
    expect(((await demoted.json()) as any).error.code).toBe("Forbidden");
    expect((await read(now, pair.access_token)).status).toBe(200);
    // and promoted again, it writes again
    await setUser(await testDatabase(), tenantId, "ann", PASSWORD, ["admin"]);
    expect((await write(now, pair.access_token)).status).toBe(201);
  });
});
