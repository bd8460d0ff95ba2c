/**
 * What the host adds to a `$batch` (the batch runtime is tested in packages/odata): each part
 * with the caller's permissions, a part for the host's own routes ($metadata, the service
 * document, a workflow's step) answered as that route would answer it alone, the OData-Version
 * each part asks for, parts outside the service refused without anything of another route's
 * answer, and the token the batch needs like every request.
 */

import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, caller, signedInTenant, testApp } from "@bizdata/test-kit/host-app";
import { workflow } from "@bizdata/test-kit/workflow-steps";
import { beforeAll, describe, expect, it } from "vitest";
import { setFeature } from "../tenants/tenant-admin.js";

let admin: Caller;
let reader: Caller;
const json = async (res: Response) => (await res.json()) as any;

beforeAll(async () => {
  ({ admin, reader } = await signedInTenant("batch"));
  await setFeature(await testDatabase(), admin.tenantId, "PriceLevels", true);
  for (const [entity, body] of [
    ["PriceLevel", { Name: "Dealer", DiscountPercent: 50 }],
    ["Product", { SKU: "B-1", Price: 10 }],
    ["Product", { SKU: "B-2", Price: 4 }],
    ["Contact", { Email: "b@example.com" }],
    ["Customer", { Id: "BC-1", PrimaryContact: "b@example.com" }],
  ] as const) {
    expect((await admin.request("POST", `/api/${entity}`, body)).status).toBe(201);
  }
});

const batch = (who: Caller, requests: unknown[]) => who.request("POST", "/api/$batch", { requests });
const count = async (path: string) => Number(await (await admin.request("GET", path)).text());

describe("$batch, JSON format", () => {
  it("applies permissions to every part", async () => {
    const { responses } = await json(
      await batch(reader, [
        { id: "r", method: "GET", url: "Product/$count" },
        { id: "w", method: "POST", url: "Product", body: { SKU: "NO" } },
      ]),
    );
    expect(responses.map((r: { status: number }) => r.status)).toEqual([200, 403]);
  });

  it("answers a part as its route would alone: the service's parts, the host's own routes, a workflow's step", async () => {
    const wf = await workflow(admin);
    const answered = await json(
      await batch(admin, [
        { id: "meta", method: "GET", url: "$metadata" },
        { id: "doc", method: "GET", url: "/api/" },
        { id: "v40", method: "GET", url: "Product/$count", headers: { "odata-maxversion": "4.0" } },
        { id: "missing", method: "GET", url: "NoSuchSet" },
        { id: "bad", method: "GET", url: "Product?$filter=SKU eq", headers: { "odata-maxversion": "4.0" } },
        {
          id: "staged",
          method: "POST",
          url: "Product",
          body: { SKU: "B-STAGED" },
          headers: { "workflow-id": wf.id, "workflow-index": "1" },
        },
        {
          id: "media",
          method: "POST",
          url: "Product",
          body: { SKU: "B-TEXT" },
          headers: { "content-type": "text/plain" },
        },
      ]),
    );
    const byId = Object.fromEntries(answered.responses.map((r: { id: string }) => [r.id, r]));
    expect(byId.meta.status).toBe(200);
    expect(byId.meta.headers["content-type"]).toMatch(/^application\/xml/);
    expect(byId.meta.body).toMatch(/<edmx:Edmx Version="4\.0"/);
    expect(byId.doc.body.value).toContainEqual({ name: "Product", kind: "EntitySet", url: "Product" });
    expect(byId.v40).toMatchObject({ status: 200, headers: { "odata-version": "4.0" } });
    // errors of the service answer as the app answers them: status, code, version and media type
    expect(byId.missing).toMatchObject({ status: 400, body: { error: { code: "InvalidBatch" } } });
    expect(byId.missing.body.error.message).toContain('"NoSuchSet" is not a resource of the service');
    expect(byId.bad).toMatchObject({
      status: 400,
      headers: { "odata-version": "4.0", "content-type": "application/json" },
      body: { error: { code: "QuerySyntaxError", target: "$filter" } },
    });
    expect(byId.media).toMatchObject({ status: 415, body: { error: { code: "UnsupportedMediaType" } } });
    // the step was staged in the workflow, not stored
    expect(byId.staged.status).toBe(201);
    expect(await count("/api/Product/$count?$filter=SKU eq 'B-STAGED'")).toBe(0);
    expect(
      await json(await wf.step("GET", "/api/Product?$filter=SKU eq 'B-STAGED'&$select=SKU", undefined, 2)),
    ).toMatchObject({
      value: [{ SKU: "B-STAGED" }],
    });
  });

  it("runs OData requests only: a part addressed to another route of the host is a 400 for that part", async () => {
    const outside = [
      "../metrics",
      "/metrics",
      "../health",
      "%2e%2e/metrics",
      "Product/../../metrics",
      "http://localhost/metrics",
      "oauth/authorize?client_id=x",
      "/api/oauth/token",
      "auth/signin",
      "openapi.json",
      "docs",
      "workflow/active",
    ];
    const { responses } = await json(
      await batch(reader, [
        ...outside.map((url, i) => ({ id: `x${i}`, method: "GET", url })),
        { id: "ok", method: "GET", url: "Product/../Product/$count" },
      ]),
    );
    const byId = Object.fromEntries(responses.map((r: { id: string }) => [r.id, r]));
    outside.forEach((url, i) => {
      expect(byId[`x${i}`], url).toMatchObject({ status: 400, body: { error: { code: "InvalidBatch" } } });
      expect(byId[`x${i}`].body.error.message).toContain(`"${url}"`);
      // nothing of the route's own answer leaks into the part's
      expect(JSON.stringify(byId[`x${i}`])).not.toMatch(/process_cpu|bizdata_http|access_token/);
    });
    expect(byId.ok).toMatchObject({ status: 200, body: expect.stringMatching(/^\d+$/) });
  });

  it("refuses thirty parallel batches reaching for the metrics, answering each one whole", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        batch(reader, [
          { id: "m", method: "GET", url: "../metrics" },
          { id: "c", method: "GET", url: "Product/$count" },
        ]),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      const { responses } = await json(res);
      expect(responses.map((r: { status: number }) => r.status)).toEqual([400, 200]);
    }
  });

  it("needs a token like every other request", async () => {
    const res = await caller(await testApp(), admin.tenantId, undefined).request("POST", "/api/$batch", {
      requests: [],
    });
    expect(res.status).toBe(401);
  });
});

describe("$batch, multipart format", () => {
  const CRLF = "\r\n";
  const part = (lines: string[]) =>
    ["Content-Type: application/http", "Content-Transfer-Encoding: binary", "", ...lines].join(CRLF);

  it("answers a part outside the service root with 400 and runs the others", async () => {
    const body = [
      "--b",
      part(["GET ../metrics HTTP/1.1", "", ""]),
      "--b",
      part(["GET oauth/jwks HTTP/1.1", "", ""]),
      "--b",
      part(["GET Product/$count HTTP/1.1", "", ""]),
      "--b--",
      "",
    ].join(CRLF);
    const res = await reader.request("POST", "/api/$batch", body, { "Content-Type": "multipart/mixed; boundary=b" });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 400", "HTTP/1.1 400", "HTTP/1.1 200"]);
    expect(text).toContain('"../metrics\\" resolves outside the service root');
    expect(text).not.toContain("process_cpu");
  });
});
