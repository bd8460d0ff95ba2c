/**
 * An app mounted under another prefix (`createApp({ basePath })`): sign-in, reads, creates,
 * next links, `$batch` part URLs, `$metadata` and workflows with their answer links all live under
 * it, and nothing answers under `/api`; the metrics label its routes under it.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { config, dataOf, PASSWORD } from "@bizdata/test-kit/host-app";
import { sample } from "@bizdata/test-kit/prometheus-text";
import { beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "./app.js";
import { loadSigningKeys } from "./auth/signing-keys.js";
import { migrateService } from "./schema.js";
import { createTenant, setUser } from "./tenants/tenant-admin.js";

const BASE = "/odata/v1";
let app: App;
let token: string;

const request = (method: string, path: string, body?: unknown) =>
  app.request(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
const json = async (res: Response) => (await res.json()) as any;

beforeAll(async () => {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  app = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config, basePath: BASE });
  const tenantId = uniqueTenant("base-path");
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  const signIn = await app.request(`${BASE}/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: tenantId, Username: "admin", Password: PASSWORD }),
  });
  expect(signIn.status).toBe(200);
  token = (await json(signIn)).access_token;
});

describe(`createApp({ basePath: "${BASE}" })`, () => {
  it("creates with a Location under the base path and reads the record there", async () => {
    const created = await request("POST", `${BASE}/Country`, { Code: "BP", Name: "Base" });
    expect(created.status).toBe(201);
    const location = created.headers.get("Location")!;
    expect(location).toMatch(new RegExp(`^${BASE}/Country\\([0-9a-f-]{36}\\)$`));
    const read = await request("GET", `${location}?$select=Name`);
    const record = await json(read);
    // the context URL is under the base path too
    expect(record["@odata.context"]).toBe("/odata/v1/$metadata#Country(Name)/$entity");
    expect(dataOf(record)).toEqual({ Guid: expect.any(String), Name: "Base" });
  });

  it("gives next links under the base path, which answer the next page", async () => {
    const pageSize = config.queryLimits.maxPageSize;
    for (let i = 0; i <= pageSize; i++) {
      expect((await request("POST", `${BASE}/Product`, { SKU: `BP-${String(i).padStart(3, "0")}` })).status).toBe(201);
    }
    const first = await json(await request("GET", `${BASE}/Product?$select=SKU&$orderby=SKU`));
    expect(first.value).toHaveLength(pageSize);
    const next: string = first["@odata.nextLink"];
    expect(next.startsWith(`${BASE}/Product?`)).toBe(true);
    const second = await json(await request("GET", next));
    expect(second.value.map((p: { SKU: string }) => p.SKU)).toEqual([`BP-${String(pageSize).padStart(3, "0")}`]);
  });

  it("runs a $batch whose part URLs are relative, absolute under the base path, or $id references", async () => {
    const res = await request("POST", `${BASE}/$batch`, {
      requests: [
        { id: "a", method: "POST", url: "Country", body: { Code: "BQ" } },
        { id: "b", method: "PATCH", url: "$a?$select=Name", body: { Name: "Batched" }, dependsOn: ["a"] },
        { id: "c", method: "GET", url: `${BASE}/Country?$filter=Code eq 'BQ'&$select=Name` },
        { id: "d", method: "GET", url: `http://localhost${BASE}/Country/$count?$filter=Code eq 'BQ'` },
      ],
    });
    expect(res.status).toBe(200);
    const { responses } = await json(res);
    expect(responses.map((r: { status: number }) => r.status)).toEqual([201, 200, 200, 200]);
    expect(responses[0].headers.location).toMatch(new RegExp(`^${BASE}/Country\\(`));
    expect(dataOf(responses[1].body)).toEqual({ Guid: responses[0].body.Guid, Name: "Batched" });
    expect(dataOf(responses[2].body.value)).toEqual([{ Guid: responses[0].body.Guid, Name: "Batched" }]);
    expect(responses[3].body).toBe("1");
  });

  it("serves the service document and $metadata under the base path", async () => {
    const root = await request("GET", `${BASE}/`);
    expect(root.status).toBe(200);
    expect((await json(root)).value).toContainEqual({ name: "Country", kind: "EntitySet", url: "Country" });
    const metadata = await request("GET", `${BASE}/$metadata`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get("Content-Type")).toContain("application/xml");
  });

  it("serves nothing under /api", async () => {
    expect((await request("GET", "/api/Country")).status).toBe(404);
  });

  it("runs workflows under the base path, answer links included", async () => {
    const created = await json(await request("POST", `${BASE}/workflow`));
    const step = (method: string, path: string, index: number, body?: unknown) =>
      app.request(path, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          "Workflow-Id": created.workflowId,
          "Workflow-Index": String(index),
          ...(body !== undefined && { "Content-Type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    // reordering into an order that has lines asks whether to replace them (AskUser)
    expect((await request("POST", `${BASE}/Customer`, { Id: "BP-C" })).status).toBe(201);
    const lines = [{ Product: "BP-000", Quantity: 1 }];
    const orderOf = async (DocNumber: string) =>
      (await json(await request("POST", `${BASE}/SalesOrder`, { DocNumber, SellToCustomer: "BP-C", Details: lines })))
        .Guid;
    const [guid, source] = [await orderOf("BP-WF"), { Guid: await orderOf("BP-WF-SRC") }];
    const reorder = await step("POST", `${BASE}/SalesOrder(${guid})/ReorderFrom`, 1, { salesOrderGuid: source.Guid });
    expect(reorder.status).toBe(200);
    const prompts = (await json(reorder))["@workflow.userprompts"];
    const href: string = Object.values<any[]>(prompts).flat()[0].choices[0].href;
    expect(href.startsWith(`${BASE}/userprompts/`)).toBe(true);
    expect((await step("POST", href, 2)).status).toBe(200);
    expect((await step("POST", `${BASE}/workflow/commit`, 3)).status).toBe(200);
  });

  it("labels the entity API's routes and sign-ins under the base path in the metrics", async () => {
    const created = await json(await request("POST", `${BASE}/Country`, { Code: "BM", Name: "Metrics" }));
    expect((await request("GET", `${BASE}/Country(${created.Guid})`)).status).toBe(200);
    expect((await request("GET", `${BASE}/Country/$count`)).status).toBe(200);
    const signIn = await app.request(`${BASE}/auth/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: "no-such-tenant", Username: "x", Password: "wrong-password" }),
    });
    expect(signIn.status).toBe(401);
    const text = await (await app.request("/metrics")).text();
    for (const route of [`${BASE}/{entity}`, `${BASE}/{entity}({key})`, `${BASE}/{entity}/$count`]) {
      expect(sample(text, "bizdata_http_requests_total", { route }), route).toBeGreaterThan(0);
    }
    expect(sample(text, "bizdata_signin_attempts_total", { outcome: "failed" })).toBeGreaterThan(0);
    expect(text).not.toContain(created.Guid);
  });
});
