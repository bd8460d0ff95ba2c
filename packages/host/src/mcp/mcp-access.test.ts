/**
 * Who may use the MCP endpoint and what they see: the 401 that sends a client to the endpoint's
 * protected-resource metadata (RFC 9728) and that document, found the way the SDK's client looks
 * for it; tools narrowed to the caller's roles and scopes (a viewer, a read-only delegated token,
 * a role that may create one entity), and refused when called anyway; tenants kept apart, a
 * 2025 session kept to the user that opened it; pages of another origin, and on a loopback
 * address other host names, refused; and the endpoint under another base path.
 */
import { sampleModel } from "@bizdata/examples";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { connect, content, type Listening, listen } from "@bizdata/test-kit/mcp-host";
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from "@modelcontextprotocol/client";
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { loadConfig } from "../config.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

const ISSUER = "https://issuer.test";
const AUDIENCE = "bizdata-mcp-test";
const WRITES = /^(create|update|delete|workflow)_|^call_\w+_(ReorderFrom|UpdatePrices|Post)$/;

let host: Listening;
let admin: Caller;
let reader: Caller;
let app: Awaited<ReturnType<typeof signedInTenant>>["app"];

beforeAll(async () => {
  ({ app, admin, reader } = await signedInTenant("mcp-access"));
  expect((await admin.request("POST", "/api/Product", { SKU: "A-1" })).status).toBe(201);
  host = await listen(app);
});

afterAll(() => host?.close());

const names = async (token: string, url = host.url) => {
  const mcp = await connect(url, token);
  const { tools } = await mcp.client.listTools();
  await mcp.close();
  return tools.map((t) => t.name);
};

const rpc = (body: unknown, headers: Record<string, string> = {}, method = "POST", path = "/api/mcp") =>
  fetch(`${host.url}${path}`, {
    method,
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    ...(method === "POST" && { body: JSON.stringify(body) }),
  });

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("MCP authentication", () => {
  it("answers 401 naming the endpoint's resource metadata, which the SDK's discovery finds", async () => {
    const res = await rpc(initialize);
    expect(res.status).toBe(401);
    const metadataUrl = `${host.url}/.well-known/oauth-protected-resource/api/mcp`;
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="api", resource_metadata="${metadataUrl}"`);
    expect(String(extractResourceMetadataUrl(res))).toBe(metadataUrl);
    const metadata = await discoverOAuthProtectedResourceMetadata(`${host.url}/api/mcp`);
    expect(metadata).toEqual({
      resource: `${host.url}/api/mcp`,
      authorization_servers: [],
      scopes_supported: ["bizdata.read", "bizdata.write"],
      bearer_methods_supported: ["header"],
      resource_name: "bizdata MCP",
    });
    const bad = await rpc(initialize, { Authorization: "Bearer not.a.token" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(bad.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`);
    // the API's own 401s keep naming the API's document
    const api = await fetch(`${host.url}/api/Product`);
    expect(api.headers.get("www-authenticate")).toContain(
      `resource_metadata="${host.url}/.well-known/oauth-protected-resource"`,
    );
  });

  it("offers no stream on GET without a session (405), refuses a page of another origin (403), streams to its own", async () => {
    const token = await signIn(app, admin.tenantId, "admin");
    const get = await rpc(undefined, { Authorization: `Bearer ${token}` }, "GET");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("GET, POST, DELETE");
    const foreign = await rpc(initialize, { Authorization: `Bearer ${token}`, Origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).error.message).toBe(
      "Requests from the origin http://evil.example are not allowed.",
    );
    const same = await rpc(initialize, { Authorization: `Bearer ${token}`, Origin: host.url, "X-Request-Id": "mcp-1" });
    expect(same.status).toBe(200);
    // the streamed answer carries what every response of the host carries
    expect(same.headers.get("content-type")).toBe("text/event-stream");
    expect(same.headers.get("x-request-id")).toBe("mcp-1");
    expect(await same.text()).toContain('"serverInfo":{"name":"bizdata"');
  });
});

describe("MCP on a loopback address (DNS rebinding)", () => {
  it("answers only for the host names it is given, whatever the Origin says", async () => {
    const db = await testDatabase();
    const config = loadConfig({ LOG_LEVEL: "silent", MAX_PAGE_SIZE: "50" });
    const keys = await loadSigningKeys(db);
    const local = createApp({ db, model: sampleModel, keys, config, mcpAllowedHosts: ["localhost", "127.0.0.1"] });
    const token = await signIn(local, admin.tenantId, "admin");
    const post = (url: string, origin?: string) =>
      local.request(url, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...(origin !== undefined && { Origin: origin }),
        },
        body: JSON.stringify(initialize),
      });
    // a page of evil.example whose name now leads here: its own origin, its own host name
    const rebound = await post("http://evil.example:3000/api/mcp", "http://evil.example:3000");
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as any).error.message).toBe("Requests for the host evil.example are not allowed.");
    for (const url of ["http://127.0.0.1:3000/api/mcp", "http://localhost:3000/api/mcp"]) {
      expect((await post(url)).status).toBe(200);
    }
  });
});

describe("MCP permissions", () => {
  it("gives a viewer the reading tools only, and refuses a write tool called anyway", async () => {
    const token = await signIn(app, reader.tenantId, "reader");
    const listed = await names(token);
    expect(listed).toContain("query_Product");
    expect(listed).toContain("call_SalesOrder_CalculateLineTotal");
    expect(listed.filter((n) => WRITES.test(n))).toEqual([]);
    const mcp = await connect(host.url, token);
    try {
      for (const [name, args] of [
        ["create_Product", { record: { SKU: "V-1" } }],
        ["call_Journal_Post", { key: "J-1" }],
        ["workflow_start", {}],
      ] as const) {
        const refused = await mcp.call(name, args);
        expect(refused.isError, name).toBe(true);
        expect(content(refused).error).toEqual({
          code: "Forbidden",
          message: `${name} is not available to you: your roles and the token's scopes do not allow it.`,
        });
      }
    } finally {
      await mcp.close();
    }
    const created = (await (await admin.request("GET", "/api/Product?$filter=SKU eq 'V-1'")).json()) as any;
    expect(created.value).toEqual([]);
  });

  describe("delegated tokens and configured roles", () => {
    let key: CryptoKey;
    let scoped: ReturnType<typeof createApp>;
    let scopedHost: Listening;
    let tenantId: string;

    beforeAll(async () => {
      const pair = await generateKeyPair("ES256", { extractable: true });
      key = pair.privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
      const db = await testDatabase();
      const config = loadConfig({
        LOG_LEVEL: "silent",
        MAX_PAGE_SIZE: "50",
        OAUTH_ISSUERS: JSON.stringify([{ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [jwk] } }]),
        ROLES: JSON.stringify({
          admin: { read: "*", create: "*", update: "*", delete: "*", call: "*" },
          clerk: { read: ["SalesOrder", "Customer"], create: ["SalesOrder"] },
        }),
      });
      scoped = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config });
      scopedHost = await listen(scoped);
      tenantId = uniqueTenant("mcp-scoped");
      await createTenant(db, tenantId);
      await setUser(db, tenantId, "agent", PASSWORD, ["admin"]);
      await setUser(db, tenantId, "clerk", PASSWORD, ["clerk"]);
    });

    afterAll(() => scopedHost?.close());

    const delegated = (scope: string) =>
      new SignJWT({ tid: tenantId, scope })
        .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject("agent")
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(key);

    it("narrows an admin's delegated token with the read scope to reading, and refuses its writes", async () => {
      const readOnly = await delegated("bizdata.read");
      const listed = await names(readOnly, scopedHost.url);
      expect(listed).toContain("get_Customer");
      expect(listed.filter((n) => WRITES.test(n))).toEqual([]);
      const mcp = await connect(scopedHost.url, readOnly);
      const refused = await mcp.call("create_Customer", { record: { Id: "NO" } });
      await mcp.close();
      expect(content(refused).error.code).toBe("Forbidden");
      // the write scope gives the user's own rights back
      expect(
        (await names(await delegated("bizdata.read bizdata.write"), scopedHost.url)).filter((n) => WRITES.test(n)),
      ).not.toEqual([]);
      // the metadata names the trusted authorization server
      const metadata = await (await fetch(`${scopedHost.url}/.well-known/oauth-protected-resource/api/mcp`)).json();
      expect(metadata).toMatchObject({ resource: `${scopedHost.url}/api/mcp`, authorization_servers: [ISSUER] });
    });

    it("lists for a configured role exactly what it grants", async () => {
      const listed = await names(await signIn(scoped, tenantId, "clerk"), scopedHost.url);
      expect(listed.filter((n) => !n.startsWith("workflow_")).sort()).toEqual([
        "create_SalesOrder",
        "get_Customer",
        "get_SalesOrder",
        "query_Customer",
        "query_SalesOrder",
      ]);
      expect(listed.filter((n) => n.startsWith("workflow_"))).toHaveLength(4);
    });
  });
});

describe("MCP tenants and sessions", () => {
  it("shows a token only its own tenant's data", async () => {
    const other = await signedInTenant("mcp-other");
    expect((await other.admin.request("POST", "/api/Product", { SKU: "B-1" })).status).toBe(201);
    const mcp = await connect(host.url, await signIn(app, other.admin.tenantId, "admin"));
    try {
      const products = content(await mcp.call("query_Product", { select: "SKU" }));
      expect(products.value.map((p: { SKU: string }) => p.SKU)).toEqual(["B-1"]);
      const theirs = await mcp.call("get_Product", { key: "A-1" });
      expect(content(theirs).error).toMatchObject({ code: "NotFound", message: 'No Product has SKU "A-1".' });
      // a write by natural key cannot reach the other tenant's record either
      const update = await mcp.call("update_Product", { key: "A-1", changes: { Price: 1 } });
      expect(content(update).error.code).toBe("NotFound");
    } finally {
      await mcp.close();
    }
  });

  it("keeps a 2025 session to the user that opened it: to anyone else it does not exist", async () => {
    const mcp = await connect(host.url, await signIn(app, admin.tenantId, "admin"), { revision: "2025-06-18" });
    try {
      const sessionId = mcp.transport.sessionId!;
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
      const headers = (token: string) => ({
        Authorization: `Bearer ${token}`,
        "Mcp-Session-Id": sessionId,
        "Mcp-Protocol-Version": "2025-06-18",
      });
      const other = await signedInTenant("mcp-thief");
      for (const token of [
        await signIn(app, reader.tenantId, "reader"),
        await signIn(app, other.admin.tenantId, "admin"),
      ]) {
        const res = await rpc(list, headers(token));
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found" },
          id: null,
        });
      }
      // its owner, with a token signed afresh, goes on
      const own = await rpc(list, headers(await signIn(app, admin.tenantId, "admin")));
      expect(own.status).toBe(200);
    } finally {
      await mcp.close();
    }
  });
});

describe("MCP under another base path", () => {
  it("serves the endpoint, its metadata and its workflows under the base path", async () => {
    const db = await testDatabase();
    const config = loadConfig({ LOG_LEVEL: "silent", MAX_PAGE_SIZE: "50" });
    const based = createApp({ db, model: sampleModel, keys: await loadSigningKeys(db), config, basePath: "/odata/v1" });
    const basedHost = await listen(based);
    try {
      const tenantId = uniqueTenant("mcp-based");
      await createTenant(db, tenantId);
      await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
      const signin = await based.request("/odata/v1/auth/signin", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ TenantId: tenantId, Username: "admin", Password: PASSWORD }),
      });
      const token = ((await signin.json()) as { access_token: string }).access_token;
      const unauthenticated = await fetch(`${basedHost.url}/odata/v1/mcp`, { method: "POST" });
      expect(unauthenticated.headers.get("www-authenticate")).toContain(
        `resource_metadata="${basedHost.url}/.well-known/oauth-protected-resource/odata/v1/mcp"`,
      );
      const mcp = await connect(basedHost.url, token, { basePath: "/odata/v1" });
      try {
        const { workflowId } = content(await mcp.call("create_Country", { record: { Code: "BP" } }));
        expect(content(await mcp.call("workflow_commit", { workflowId })).status).toBe("saved");
        expect(content(await mcp.call("get_Country", { key: "BP", select: "Code" })).value).toMatchObject({
          Code: "BP",
        });
      } finally {
        await mcp.close();
      }
    } finally {
      await basedHost.close();
    }
  });
});
