/**
 * The rights a workflow step asks for (issue 35) as the host gives them: a `bizdata.read` OAuth
 * token of the workflow's owner, and an owner demoted to `reader` after staging, may read in the
 * workflow but not stage in it, commit it or close it — 403 naming the write, the workflow open for
 * an owner with write rights, who then commits it. The OAuth tokens are the host's own, whose roles
 * are read on every request. What the workflow service does with these rights (answers, parallel
 * attempts, what stays stored) is its own test, packages/workflow/src/server/workflow-rights.test.ts.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, config, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys, type SigningKeys } from "../auth/signing-keys.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const PUBLIC_URL = "http://bizdata.test";
const tenantId = uniqueTenant("wf-rights");
const json = async (res: Response) => (await res.json()) as any;

let app: ReturnType<typeof createApp>;
let keys: SigningKeys;
let alice: Caller;

/**
 * `username`'s token as the host's own authorization server issues it (RFC 9068), with `scope`,
 * under a grant stored as a consent stores it (the API refuses a token whose grant is gone)
 */
const oauth = async (username: string, scope: string) => {
  const gid = crypto.randomUUID();
  await (await testDatabase()).query({
    sql: "INSERT INTO bizdata_oauth_state (kind, id, payload) VALUES ('Grant', $1, '{}')",
    params: [gid],
  });
  return caller(
    app,
    tenantId,
    await new SignJWT({ tid: tenantId, scope, client_id: "wf-rights-client", gid })
      .setProtectedHeader({ alg: "ES256", kid: keys.current.kid, typ: "at+jwt" })
      .setIssuer(PUBLIC_URL)
      .setAudience(`${PUBLIC_URL}/api`)
      .setSubject(username)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(keys.current.key),
  );
};

/** a request as a step of workflow `id` at `index` */
const stepAs = (who: Caller, id: string, index: number, method: string, path: string, body?: unknown) =>
  who.request(method, path, body, { "Workflow-Id": id, "Workflow-Index": String(index) });

const nextIndex = async (who: Caller, id: string) => {
  const res = await who.request("GET", `/api/workflow/${id}`);
  expect(res.status).toBe(200);
  return (await json(res)).nextIndex as number;
};

/** what `who` may not do to workflow `id` (at `index`): commit it and close it, each a 403 naming why */
async function expectRefused(who: Caller, id: string, index: number) {
  const commit = await stepAs(who, id, index, "POST", "/api/workflow/commit");
  expect(commit.status).toBe(403);
  expect(commit.headers.get("Workflow-Next-Index")).toBe(String(index));
  expect((await json(commit)).error).toEqual({
    code: "Forbidden",
    message: expect.stringMatching(
      /^Your role does not allow (creating|updating|deleting) \w+, which this workflow staged; committing it needs that right\.$/,
    ),
  });
  const close = await who.request("DELETE", `/api/workflow/${id}`);
  expect(close.status).toBe(403);
  expect((await json(close)).error.message).toMatch(/; closing it needs that right\.$/);
  // still there, at the same index, for its owner whatever the rights
  expect(await nextIndex(who, id)).toBe(index);
}

const post = async (entity: string, body: object) => {
  const res = await alice.request("POST", `/api/${entity}`, body);
  expect(res.status).toBe(201);
  return (await json(res)).Guid as string;
};

const priceOf = async (product: string) =>
  (await json(await alice.request("GET", `/api/Product(${product})?$select=Price`))).Price;

beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  keys = await loadSigningKeys(db);
  // tokens' grants and roles read on every request: a demotion shows on the next one
  const now = { ...config, auth: { ...config.auth, grantCacheMs: 0 } };
  app = createApp({ db, model: sampleModel, keys, config: now, oauthServer: { publicUrl: PUBLIC_URL } });
  await createTenant(db, tenantId);
  for (const user of ["alice", "bob"]) await setUser(db, tenantId, user, PASSWORD, ["admin"]);
  alice = caller(app, tenantId, await signIn(app, tenantId, "alice"));
});

describe("a bizdata.read token of the workflow's owner", () => {
  it("reads in the workflow but cannot stage, commit or close it; the owner's own token then commits", async () => {
    const product = await post("Product", { SKU: "R-1", Price: 100 });
    const wf = await workflow(alice, "rights-read");
    expect((await wf.step("PATCH", `/api/Product(${product})`, { Price: 150 })).status).toBe(200);

    const reader = await oauth("alice", "bizdata.read");
    const inside = await stepAs(reader, wf.id, 2, "GET", `/api/Product(${product})?$select=Price`);
    expect(inside.status).toBe(200);
    expect((await json(inside)).Price).toBe(150);
    const staging = await stepAs(reader, wf.id, 3, "PATCH", `/api/Product(${product})`, { Price: 1 });
    expect(staging.status).toBe(403);
    expect(staging.headers.get("Workflow-Next-Index")).toBe("3");
    await expectRefused(reader, wf.id, 3);
    expect(await priceOf(product)).toBe(100);
    expect((await stepAs(alice, wf.id, 3, "POST", "/api/workflow/commit")).status).toBe(200);
    expect(await priceOf(product)).toBe(150);
  });
});

describe("an owner demoted to reader after staging", () => {
  it("cannot commit or close what was staged, with the same OAuth token or a new sign-in; promoted again, commits", async () => {
    const db = await testDatabase();
    const product = await post("Product", { SKU: "R-2", Price: 100 });
    const bob = await oauth("bob", "bizdata.read bizdata.write");
    const wf = await workflow(bob);
    expect((await wf.step("PATCH", `/api/Product(${product})`, { Price: 70 })).status).toBe(200);

    await setUser(db, tenantId, "bob", PASSWORD, ["reader"]);
    // the same token: its roles are read on this request
    const inside = await stepAs(bob, wf.id, 2, "GET", `/api/Product(${product})?$select=Price`);
    expect((await json(inside)).Price).toBe(70);
    await expectRefused(bob, wf.id, 3);
    // a password sign-in after the demotion carries the reader role
    const signedIn = caller(app, tenantId, await signIn(app, tenantId, "bob"));
    await expectRefused(signedIn, wf.id, 3);
    expect(await priceOf(product)).toBe(100);

    await setUser(db, tenantId, "bob", PASSWORD, ["admin"]);
    expect((await stepAs(bob, wf.id, 3, "POST", "/api/workflow/commit")).status).toBe(200);
    expect(await priceOf(product)).toBe(70);
  });
});
