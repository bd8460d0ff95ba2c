/**
 * Rights at every workflow step that changes data (issue 35), through HTTP: a `bizdata.read`
 * OAuth token of the workflow's owner, and an owner demoted to `reader` after staging, may find,
 * resume and read the workflow but not stage in it, commit it, close it or answer its questions —
 * 403 naming the write, nothing stored, the workflow open for an owner with write rights, who
 * then commits it. The OAuth tokens are the host's own, whose roles are read on every request.
 */
import { sampleFeatures, sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, config, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys, type SigningKeys } from "../auth/signing-keys.js";
import { migrateService } from "../schema.js";
import { createTenant, setFeature, setUser } from "../tenants/tenant-admin.js";

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
  for (const f of sampleFeatures) await setFeature(db, tenantId, f, true);
  for (const user of ["alice", "bob"]) await setUser(db, tenantId, user, PASSWORD, ["admin"]);
  alice = caller(app, tenantId, await signIn(app, tenantId, "alice"));
  await post("Customer", { Id: "RC-1", CreditLimit: 500 });
});

describe("a bizdata.read token of the workflow's owner", () => {
  it("finds, resumes and reads the workflow but cannot stage, commit or close it; the owner then commits", async () => {
    const product = await post("Product", { SKU: "R-1", Price: 100 });
    const doomed = await post("Customer", { Id: "RC-OLD" });
    const wf = await workflow(alice, "rights-read");
    expect((await wf.step("PATCH", `/api/Product(${product})`, { Price: 150 })).status).toBe(200);
    expect((await wf.step("POST", "/api/Customer", { Id: "RC-NEW" })).status).toBe(201);
    expect((await wf.step("DELETE", `/api/Customer(${doomed})`)).status).toBe(204);

    const reader = await oauth("alice", "bizdata.read");
    const found = await reader.request("GET", "/api/workflow/active?stagingKey=rights-read");
    expect(found.status).toBe(200);
    expect(await json(found)).toEqual({ workflowId: wf.id, nextIndex: 4 });
    const inside = await stepAs(reader, wf.id, 4, "GET", `/api/Product(${product})?$select=Price`);
    expect(inside.status).toBe(200);
    expect((await json(inside)).Price).toBe(150);
    // a staged write is the service's own check: refused, and the index stays
    const staging = await stepAs(reader, wf.id, 5, "PATCH", `/api/Product(${product})`, { Price: 1 });
    expect(staging.status).toBe(403);
    expect(staging.headers.get("Workflow-Next-Index")).toBe("5");
    await expectRefused(reader, wf.id, 5);
    // 30 at once change nothing either: every one refused
    const attempts = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 === 0
          ? stepAs(reader, wf.id, 5, "POST", "/api/workflow/commit")
          : reader.request("DELETE", `/api/workflow/${wf.id}`),
      ),
    );
    expect(attempts.map((r) => r.status)).toEqual(Array(30).fill(403));

    // nothing stored: the main data as it was
    expect(await priceOf(product)).toBe(100);
    expect(await (await alice.request("GET", "/api/Customer/$count?$filter=Id eq 'RC-NEW'")).text()).toBe("0");
    expect((await alice.request("GET", `/api/Customer(${doomed})`)).status).toBe(200);
    // the owner with write rights finds it intact and commits it
    expect(await nextIndex(alice, wf.id)).toBe(5);
    const committed = await stepAs(alice, wf.id, 5, "POST", "/api/workflow/commit");
    expect(committed.status).toBe(200);
    expect((await json(committed)).message).toBe("Committed 3 changes.");
    expect(await priceOf(product)).toBe(150);
    expect((await alice.request("GET", `/api/Customer(${doomed})`)).status).toBe(404);
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

describe("the answer link", () => {
  it("needs the right to call the method that waits for the answer", async () => {
    const source = await post("SalesOrder", {
      DocNumber: "RA-SRC",
      Description: "from",
      SellToCustomer: "RC-1",
      Details: [{ Product: await post("Product", { SKU: "R-3", Price: 1 }), Quantity: 1 }],
    });
    const target = await post("SalesOrder", {
      DocNumber: "RA-TGT",
      SellToCustomer: "RC-1",
      Details: [{ Product: "R-3", Quantity: 2 }],
    });
    const wf = await workflow(alice);
    const call = await wf.step("POST", `/api/SalesOrder(${target})/ReorderFrom`, { salesOrderGuid: source });
    const question = (await json(call))["@workflow.userprompts"][target][0];
    const reader = await oauth("alice", "bizdata.read");
    for (const choice of question.choices) {
      const refused = await stepAs(reader, wf.id, wf.index, "POST", choice.href);
      expect(refused.status).toBe(403);
      expect((await json(refused)).error).toEqual({
        code: "Forbidden",
        message: "Your role does not allow calling SalesOrder.ReorderFrom, which this question waits to run.",
      });
    }
    // still open: the owner with write rights answers, the call runs, and commits
    expect((await wf.step("POST", question.choices[0].href)).status).toBe(200);
    expect((await wf.step("POST", "/api/workflow/commit")).status).toBe(200);
    expect((await json(await alice.request("GET", `/api/SalesOrder(${target})?$select=Description`))).Description).toBe(
      "from",
    );
  });

  it("needs the rights of the staged writes a save-time question continues", async () => {
    await post("Product", { SKU: "R-4", Price: 100 });
    const wf = await workflow(alice);
    const order = await wf.step("POST", "/api/SalesOrder", {
      DocNumber: "RA-BIG",
      SellToCustomer: "RC-1",
      Details: [{ Product: "R-4", Quantity: 6 }],
    });
    const guid = (await json(order)).Guid;
    // over the customer's credit limit: commit asks first
    const asked = await wf.step("POST", "/api/workflow/commit");
    expect(asked.status).toBe(422);
    const question = (await json(asked))["@workflow.userprompts"][guid][0];
    const reader = await oauth("alice", "bizdata.read");
    const refused = await stepAs(reader, wf.id, wf.index, "POST", question.choices[0].href);
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.message).toMatch(
      /^Your role does not allow creating SalesOrder(Detail)?, which this workflow staged; answering its question needs that right\.$/,
    );
    expect((await wf.step("POST", question.choices[0].href)).status).toBe(200);
    expect((await wf.step("POST", "/api/workflow/commit")).status).toBe(200);
    expect((await alice.request("GET", `/api/SalesOrder(${guid})`)).status).toBe(200);
  });
});
