/**
 * Registering webhooks through `/api/$webhooks`: what a tenant admin can do with a subscription,
 * every fault of a registration a 400 naming its property, who may (the `webhooks` grant), one
 * tenant's subscriptions out of another's reach, and requests at once where they could race. No
 * deliverer runs here, and these tenants write nothing, so none of these endpoints is ever sent to.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, caller, config, PASSWORD, signedInTenant, signIn, testApp } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { setUser } from "../tenants/tenant-admin.js";

const json = async (res: Response) => (await res.json()) as any;

const ENDPOINT = "https://hooks.example.com/bizdata";

/** the same caller on an app of `overrides`' configuration (over the test database and its keys) */
async function on(who: Caller, username: string, overrides: Partial<typeof config>): Promise<Caller> {
  const db = await testDatabase();
  const app = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, ...overrides },
  });
  return caller(app, who.tenantId, await signIn(app, who.tenantId, username));
}

/** the reference host's own rules for endpoints: https only, to public addresses */
const strict = { webhooks: { ...config.webhooks, allowInsecure: false } };

async function register(admin: Caller, body: unknown = { url: ENDPOINT, entities: ["Product"] }) {
  const res = await admin.request("POST", "/api/$webhooks", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

describe("registering webhooks", () => {
  it("registers, lists, reads, changes and removes a subscription, and shows its secret once", async () => {
    const { admin } = await signedInTenant("whr");
    const res = await admin.request("POST", "/api/$webhooks", { url: ENDPOINT, entities: ["Product", "Customer"] });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const created = await json(res);
    expect(res.headers.get("location")).toBe(`/api/$webhooks/${created.id}`);
    expect(created).toMatchObject({
      url: ENDPOINT,
      entities: ["Product", "Customer"],
      kinds: ["create", "update", "delete"],
      enabled: true,
      createdBy: "admin",
    });
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Standard Webhooks: whsec_ and the base64 of the key's bytes
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);

    const { secret, ...shown } = created;
    expect(await json(await admin.request("GET", `/api/$webhooks/${created.id}`))).toEqual(shown);
    expect(await json(await admin.request("GET", "/api/$webhooks"))).toEqual({ value: [shown] });

    const patched = await admin.request("PATCH", `/api/$webhooks/${created.id}`, { enabled: false, kinds: ["delete"] });
    expect(patched.status).toBe(200);
    expect(await json(patched)).toEqual({ ...shown, enabled: false, kinds: ["delete"] });
    expect(await json(await admin.request("PATCH", `/api/$webhooks/${created.id}`, {}))).toMatchObject({
      enabled: false,
    });
    expect(await json(await admin.request("GET", `/api/$webhooks/${created.id}/deliveries`))).toEqual({ value: [] });

    expect((await admin.request("DELETE", `/api/$webhooks/${created.id}`)).status).toBe(204);
    expect((await admin.request("GET", `/api/$webhooks/${created.id}`)).status).toBe(404);
    expect((await admin.request("DELETE", `/api/$webhooks/${created.id}`)).status).toBe(404);
    expect(await json(await admin.request("GET", "/api/$webhooks"))).toEqual({ value: [] });
  });

  it("refuses a faulty registration with a 400 naming each faulty property", async () => {
    const { admin } = await signedInTenant("whr");
    const https = await on(admin, "admin", strict);
    const good = { url: ENDPOINT, entities: ["Product"] };
    const cases: [unknown, string, string][] = [
      [{ entities: ["Product"] }, "url", "Required"],
      [{ url: ENDPOINT }, "entities", "Required"],
      [{ ...good, url: "http://hooks.example.com/x" }, "url", "InvalidValue"],
      [{ ...good, url: "ftp://hooks.example.com/x" }, "url", "InvalidValue"],
      [{ ...good, url: "hooks.example.com/x" }, "url", "InvalidValue"],
      [{ ...good, url: `https://hooks.example.com/${"x".repeat(2048)}` }, "url", "InvalidValue"],
      [{ ...good, url: "https://user:secret@hooks.example.com/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://hooks.example.com/x#part" }, "url", "InvalidValue"],
      [{ ...good, url: "https://127.0.0.1/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://localhost:8443/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://[::1]/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://[::ffff:10.0.0.1]/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://10.1.2.3/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://192.168.1.1/x" }, "url", "InvalidValue"],
      [{ ...good, url: "https://169.254.169.254/latest" }, "url", "InvalidValue"],
      [{ ...good, url: 42 }, "url", "InvalidValue"],
      [{ ...good, entities: "Product" }, "entities", "InvalidType"],
      [{ ...good, entities: [] }, "entities", "InvalidType"],
      [{ ...good, entities: ["Nope"] }, "entities[0]", "InvalidValue"],
      [{ ...good, entities: ["Product", "product"] }, "entities[1]", "InvalidValue"],
      [{ ...good, entities: ["Product", "Product"] }, "entities[1]", "InvalidValue"],
      [{ ...good, entities: [7] }, "entities[0]", "InvalidValue"],
      [{ ...good, entities: ["SalesOrderImport"] }, "entities[0]", "InvalidValue"],
      [{ ...good, kinds: ["upsert"] }, "kinds[0]", "InvalidValue"],
      [{ ...good, kinds: ["create", "create"] }, "kinds[1]", "InvalidValue"],
      [{ ...good, kinds: [] }, "kinds", "InvalidType"],
      [{ ...good, enabled: "yes" }, "enabled", "InvalidType"],
      [{ ...good, secret: "whsec_mine" }, "secret", "UnknownProperty"],
    ];
    const answers = await Promise.all(cases.map(([body]) => https.request("POST", "/api/$webhooks", body)));
    for (const [i, res] of answers.entries()) {
      const [body, target, code] = cases[i]!;
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe("ValidationError");
      expect(error.details, JSON.stringify(body)).toContainEqual(expect.objectContaining({ target, code }));
    }
    // every fault at once, each named
    const all = await json(
      await https.request("POST", "/api/$webhooks", { url: "http://x", entities: ["A"], kinds: 1 }),
    );
    expect(all.error.details.map((d: { target: string }) => d.target)).toEqual(["url", "entities[0]", "kinds"]);
    // not an object, not JSON, not JSON at all
    expect((await json(await https.request("POST", "/api/$webhooks", [good]))).error.code).toBe("InvalidBody");
    expect((await json(await https.request("POST", "/api/$webhooks", "{"))).error.code).toBe("InvalidJson");
    expect(
      (await https.request("POST", "/api/$webhooks", "url=x", { "Content-Type": "application/x-www-form-urlencoded" }))
        .status,
    ).toBe(415);
    // a change is checked the same way
    const { id } = await register(https);
    const patch = await https.request("PATCH", `/api/$webhooks/${id}`, { url: "https://127.0.0.1/", enabled: 1 });
    expect(patch.status).toBe(400);
    expect((await json(patch)).error.details.map((d: { target: string }) => d.target)).toEqual(["url", "enabled"]);
    // plain http and this machine where the configuration allows them (WEBHOOK_ALLOW_INSECURE)
    await register(admin, { url: "http://127.0.0.1:9/hook", entities: ["Product"] });
    expect(await json(await https.request("GET", "/api/$webhooks"))).toMatchObject({ value: [{}, {}] });
  });

  it("lets only roles with the webhooks grant manage subscriptions, for the entity sets it names", async () => {
    const { admin, reader } = await signedInTenant("whr");
    const db = await testDatabase();
    await setUser(db, admin.tenantId, "clerk", PASSWORD, ["clerk"]);
    await setUser(db, admin.tenantId, "watcher", PASSWORD, ["watcher"]);
    // the watcher's grant is void: an event may carry what it may not read
    const roles = { ...config.roles, clerk: { read: "*", webhooks: ["Product"] }, watcher: { webhooks: "*" } } as const;
    const clerk = await on(admin, "clerk", { roles });
    const watcher = await on(admin, "watcher", { roles });
    const { id } = await register(admin, { url: ENDPOINT, entities: ["Product", "Customer"] });
    const requests: [string, string, unknown?][] = [
      ["POST", "/api/$webhooks", { url: ENDPOINT, entities: ["Product"] }],
      ["GET", "/api/$webhooks"],
      ["GET", `/api/$webhooks/${id}`],
      ["PATCH", `/api/$webhooks/${id}`, { enabled: false }],
      ["DELETE", `/api/$webhooks/${id}`],
      ["GET", `/api/$webhooks/${id}/deliveries`],
      ["POST", `/api/$webhooks/${id}/redeliver`],
      ["POST", `/api/$webhooks/${id}/deliveries/${crypto.randomUUID()}/redeliver`],
    ];
    for (const who of [reader, watcher])
      for (const [method, path, body] of requests) {
        const res = await who.request(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((await json(res)).error.code).toBe("Forbidden");
      }
    // the clerk: Product only, so not Customer, nor a subscription that names it
    const own = await register(clerk, { url: ENDPOINT, entities: ["Product"] });
    expect((await clerk.request("POST", "/api/$webhooks", { url: ENDPOINT, entities: ["Customer"] })).status).toBe(403);
    expect((await clerk.request("GET", `/api/$webhooks/${id}`)).status).toBe(403);
    expect((await clerk.request("DELETE", `/api/$webhooks/${id}`)).status).toBe(403);
    expect((await clerk.request("PATCH", `/api/$webhooks/${own.id}`, { entities: ["Customer"] })).status).toBe(403);
    expect((await json(await clerk.request("GET", "/api/$webhooks"))).value.map((w: { id: string }) => w.id)).toEqual([
      own.id,
    ]);
    expect((await admin.request("GET", `/api/$webhooks/${id}`)).status).toBe(200);
    // without a token
    expect((await (await testApp()).request("/api/$webhooks")).status).toBe(401);
  });

  it("keeps a tenant's subscriptions out of another's reach, and answers unknown ones 404", async () => {
    const [a, b] = await Promise.all([signedInTenant("whr"), signedInTenant("whr")]);
    const { id } = await register(a.admin);
    for (const [method, path, body] of [
      ["GET", `/api/$webhooks/${id}`],
      ["PATCH", `/api/$webhooks/${id}`, { enabled: false }],
      ["DELETE", `/api/$webhooks/${id}`],
      ["GET", `/api/$webhooks/${id}/deliveries`],
      ["POST", `/api/$webhooks/${id}/redeliver`],
      ["GET", `/api/$webhooks/${crypto.randomUUID()}`],
      ["GET", "/api/$webhooks/not-a-guid"],
      ["POST", `/api/$webhooks/${id}/deliveries/not-a-guid/redeliver`],
    ] as [string, string, unknown?][]) {
      const who = path.includes("deliveries/not-a-guid") ? a.admin : b.admin;
      const res = await who.request(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await json(res)).error.code).toBe("NotFound");
    }
    expect(await json(await b.admin.request("GET", "/api/$webhooks"))).toEqual({ value: [] });
    expect(await json(await a.admin.request("GET", `/api/$webhooks/${id}`))).toMatchObject({ enabled: true });
    for (const query of ["state=delivered", "$top=-1", "$top=1.5", `$top=${config.queryLimits.maxPageSize + 1}`]) {
      const res = await a.admin.request("GET", `/api/$webhooks/${id}/deliveries?${query}`);
      expect(res.status, query).toBe(400);
      expect((await json(res)).error.code).toBe("InvalidValue");
    }
  });

  it("holds a tenant to its number of subscriptions, however many registrations come at once", async () => {
    const { admin } = await signedInTenant("whr");
    const limit = config.webhooks.perTenant;
    const answers = await Promise.all(
      Array.from({ length: limit + 5 }, (_, i) =>
        admin.request("POST", "/api/$webhooks", { url: `${ENDPOINT}/${i}`, entities: ["Product"] }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    const refused = await json(answers.find((res) => res.status === 400)!);
    expect(refused.error.code).toBe("WebhookLimitReached");
    const created = await Promise.all(answers.filter((res) => res.status === 201).map(json));
    expect(new Set(created.map((w) => w.id)).size).toBe(limit);
    expect(new Set(created.map((w) => w.secret)).size).toBe(limit);
    expect((await json(await admin.request("GET", "/api/$webhooks"))).value).toHaveLength(limit);
    // removed at once by many: one removes it, the others find none
    const { id } = created[0];
    const removals = await Promise.all(
      Array.from({ length: 30 }, () => admin.request("DELETE", `/api/$webhooks/${id}`)),
    );
    expect(removals.map((res) => res.status).sort()).toEqual([204, ...Array(29).fill(404)]);
    expect((await json(await admin.request("GET", "/api/$webhooks"))).value).toHaveLength(limit - 1);
  });
});
