/**
 * The OpenAPI document and the docs page over HTTP: both public, under the app's base path, the
 * document valid and the same one `openApiDocument` builds; the service's real answers match the
 * document's schemas; the page's files come from swagger-ui-dist and nothing else is served; the
 * OAuth issuers of the configuration show as schemes and in the page's policy.
 */
import { sampleModel } from "@bizdata/examples";
import { openApiDocument } from "@bizdata/odata";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { bodyValidator, openApiErrors, responseSchemaAt } from "@bizdata/test-kit/openapi-validators";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";

type App = Awaited<ReturnType<typeof signedInTenant>>["app"];

let app: App;
let admin: Caller;
let served: unknown;

beforeAll(async () => {
  ({ app, admin } = await signedInTenant("openapi"));
  served = await (await app.request("/api/openapi.json")).json();
});

describe("GET /api/openapi.json", () => {
  it("answers without a token, as JSON, the document of the model under /api", async () => {
    const res = await app.request("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    // the test config's MAX_PAGE_SIZE is 50
    expect(served).toEqual(openApiDocument(sampleModel, { serverUrl: "/api", maxPageSize: 50 }));
    expect(await openApiErrors(served)).toEqual([]);
  });

  it("is the same document whoever asks, with or without a token", async () => {
    const signedIn = await admin.request("GET", "/api/openapi.json");
    expect(await signedIn.json()).toEqual(served);
  });
});

describe("the service's answers match the OpenAPI document", () => {
  const check = async (res: Response, path: string, method: string, status: number) => {
    expect(res.status).toBe(status);
    const body = await res.json();
    const validate = bodyValidator(served, responseSchemaAt(served, path, method, status));
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    return body as Record<string, any>;
  };
  const bodyFits = (path: string, method: string, body: unknown) => {
    const validate = bodyValidator(
      served,
      `#/paths/${path.replaceAll("/", "~1")}/${method}/requestBody/content/application~1json/schema`,
    );
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  };

  it("creates, reads, lists and counts records as the schemas say", async () => {
    const country = { Code: "OA", Name: "Openapia" };
    const contact = { Email: "oa@example.com", FirstName: "Ada", MailingAddress: { City: "X", Country: "OA" } };
    const customer = { Id: "C-OA", Name: "OA Ltd", PrimaryContact: "oa@example.com", CreditLimit: 1000.5 };
    const product = {
      SKU: "OA-1",
      SalesDescription: "Kettle",
      Cost: 12.5,
      Uoms: [{ Name: "Each" }, { Name: "Box", Factor: 6 }],
    };
    for (const [set, body] of [
      ["Country", country],
      ["Contact", contact],
      ["Customer", customer],
      ["Product", product],
    ] as const) {
      bodyFits(`/${set}`, "post", body);
      await check(await admin.request("POST", `/api/${set}?$select=*`, body), `/${set}`, "post", 201);
    }
    const list = await check(
      await admin.request(
        "GET",
        "/api/Customer?$select=*&$expand=PrimaryContact($select=*,FullName,RecordReadOnly)&$count=true",
      ),
      "/Customer",
      "get",
      200,
    );
    expect(list.value[0].PrimaryContact.FullName).toBe("Ada");
    const products = await check(
      await admin.request("GET", "/api/Product?$select=*&$expand=Uoms($select=*)"),
      "/Product",
      "get",
      200,
    );
    const guid = products.value[0].Guid as string;
    await check(
      await admin.request("GET", `/api/Product(${guid})?$select=SKU,Cost,RecordReadOnly`),
      "/Product({Guid})",
      "get",
      200,
    );
    bodyFits("/Product({Guid})", "patch", { Cost: 13 });
    await check(
      await admin.request("PATCH", `/api/Product(${guid})?$select=Cost`, { Cost: 13 }),
      "/Product({Guid})",
      "patch",
      200,
    );
    const count = await admin.request("GET", "/api/Product/$count");
    expect(count.headers.get("content-type")).toBe("text/plain");
    expect(await count.text()).toBe("1");
  });

  it("calls methods, works in workflows and answers errors as the schemas say", async () => {
    await check(
      await admin.request("GET", "/api/SalesOrder/GetOpenOrders()?customerId=C-NONE&$select=DocNumber"),
      "/SalesOrder/GetOpenOrders()",
      "get",
      200,
    );
    await check(await admin.request("POST", "/api/workflow?stagingKey=oa"), "/workflow", "post", 200);
    const error = await check(await admin.request("GET", "/api/Product('abc')"), "/Product({Guid})", "get", 400);
    expect(error.error.code).toBe("InvalidKey");
  });

  it("signs in as the schema says", async () => {
    const res = await app.request("/api/auth/signin", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: admin.tenantId, Username: "admin", Password: "correct horse battery staple" }),
    });
    await check(res, "/auth/signin", "post", 200);
  });

  it("and a body the schema does not describe fails the check", () => {
    const validate = bodyValidator(served, responseSchemaAt(served, "/Product", "get", 200));
    expect(validate({ value: [{ SKU: 5 }] })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: "/value/0/SKU", message: "must be string" });
    const create = bodyValidator(served, "#/paths/~1Product/post/requestBody/content/application~1json/schema");
    expect(create({ SalesDescription: "no SKU" })).toBe(false);
    expect(create.errors?.[0]).toMatchObject({ message: "must have required property 'SKU'" });
  });
});

describe("GET /docs", () => {
  it("answers the page without a token, loading Swagger UI from this host, under a strict policy", async () => {
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    const policy = res.headers.get("content-security-policy")!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/docs/swagger-ui.css">');
    expect(html).toContain('"openApiUrl":"/api/openapi.json"');
    expect(html).toContain('"tokenPaths":["/api/auth/signin","/api/auth/refresh"]');
    expect(html).not.toMatch(/https?:\/\//);
    const script = await app.request("/docs/docs-page.js");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("validatorUrl: null");
  });

  it.each([
    ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
    ["swagger-ui.css", "text/css; charset=utf-8"],
    ["favicon-32x32.png", "image/png"],
    ["oauth2-redirect.html", "text/html; charset=utf-8"],
  ])("serves %s from swagger-ui-dist, revalidated by its ETag", async (file, type) => {
    const res = await app.request(`/docs/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"swagger-ui-\d+\.\d+\.\d+-/);
    const again = await app.request(`/docs/${file}`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
  });

  it.each([
    "package.json",
    "swagger-ui-bundle.js.map",
    "index.html",
    "..%2Fpackage.json",
    "%2E%2E%2F%2E%2E%2Fpackage.json",
  ])("serves nothing else of the package: %s is 404", async (file) => {
    const res = await app.request(`/docs/${file}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "NotFound" } });
  });
});

describe("the document and the page of an app under another base path, with OAuth issuers", () => {
  let other: ReturnType<typeof createApp>;
  beforeAll(async () => {
    const db = await testDatabase();
    const issuers = [
      { issuer: "https://login.example.com/t1", audience: "api", jwks: { keys: [] } },
      {
        issuer: "https://auth.example.org",
        audience: "api",
        jwks: { keys: [] },
        authorizationEndpoint: "https://auth.example.org/authorize",
        tokenEndpoint: "https://tokens.example.org/token",
      },
    ];
    const withIssuers = loadConfig({ LOG_LEVEL: "silent", OAUTH_ISSUERS: JSON.stringify(issuers) });
    other = createApp({
      db,
      model: sampleModel,
      keys: await loadSigningKeys(db),
      config: withIssuers,
      basePath: "/svc/v2",
    });
  });

  it("serves both under the base path and names it as the server", async () => {
    const doc = (await (await other.request("/svc/v2/openapi.json")).json()) as any;
    expect(doc.servers).toEqual([{ url: "/svc/v2" }]);
    expect(await openApiErrors(doc)).toEqual([]);
    const html = await (await other.request("/docs")).text();
    expect(html).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(html).toContain('"openApiUrl":"/svc/v2/openapi.json"');
    expect((await other.request("/docs/swagger-ui.css")).status).toBe(200);
    expect((await other.request("/api/openapi.json")).status).toBe(404);
  });

  it("describes each issuer as an OAuth2 scheme, and lets the page talk to them", async () => {
    const doc = (await (await other.request("/svc/v2/openapi.json")).json()) as any;
    expect(doc.components.securitySchemes["oauth2-1"]).toMatchObject({
      type: "openIdConnect",
      openIdConnectUrl: "https://login.example.com/t1/.well-known/openid-configuration",
    });
    expect(doc.components.securitySchemes["oauth2-2"].flows.authorizationCode).toMatchObject({
      authorizationUrl: "https://auth.example.org/authorize",
      tokenUrl: "https://tokens.example.org/token",
      scopes: { "bizdata.read": expect.any(String), "bizdata.write": expect.any(String) },
    });
    const policy = (await other.request("/docs")).headers.get("content-security-policy");
    expect(policy).toContain(
      "connect-src 'self' https://login.example.com https://auth.example.org https://tokens.example.org;",
    );
  });
});
