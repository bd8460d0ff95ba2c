/**
 * The whole way of an agent host that does OAuth itself (issue 14): the MCP SDK's own client
 * meets the endpoint's 401, finds the protected resource and this host's authorization server
 * (RFC 9728, RFC 8414), registers (RFC 7591) — or, on 2026-07-28, names its Client ID Metadata
 * Document, which the server fetches — sends the person to sign in and allow access in a
 * real browser, takes the code with PKCE and reconnects with the token; then it lists tools,
 * queries through a path filter with $expand, orders by natural keys in a workflow, answers the
 * credit-limit question (the sample domain's CreditCheck), commits, and reads the order back over
 * plain HTTP with the same token, whose audience is the MCP endpoint. Skips, with the reason,
 * only when Chromium cannot start.
 */
import { sampleFeatures } from "@bizdata/examples";
import { type MetadataDocuments, serveMetadataDocuments } from "@bizdata/test-kit/client-metadata";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, dataOf, PASSWORD, signedInTenant } from "@bizdata/test-kit/host-app";
import { BrowserAuthorization, recordingFetch } from "@bizdata/test-kit/mcp-oauth-provider";
import { launchBrowser } from "@bizdata/test-kit/oauth-browser";
import { type OAuthHost, oauthHostConfig, serveOAuthHost } from "@bizdata/test-kit/oauth-client";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setFeature } from "../tenants/tenant-admin.js";

const launched = await launchBrowser();
if ("reason" in launched) console.warn(`MCP OAuth agent test skipped: ${launched.reason}`);
const browser = "browser" in launched ? launched.browser : undefined;

let host: OAuthHost;
let documents: MetadataDocuments;
let admin: Caller;

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as any;
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as any;

beforeAll(async () => {
  documents = await serveMetadataDocuments("https://agent.example");
  host = await serveOAuthHost("/api", oauthHostConfig, { fetch: documents.fetch });
  const tenant = await signedInTenant("mcp-agent");
  admin = tenant.admin;
  for (const f of sampleFeatures) await setFeature(await testDatabase(), admin.tenantId, f, true);
  const post = async (entity: string, body: unknown) => {
    const res = await admin.request("POST", `/api/${entity}`, body);
    expect(res.status, `${entity}: ${await res.clone().text()}`).toBe(201);
  };
  await post("Country", { Code: "US", Name: "United States" });
  for (const state of ["PA", "NY"]) {
    await post("Contact", { Email: `${state}@example.com`, MailingAddress: { State: state, Country: "US" } });
  }
  await post("Customer", { Id: "C-PA", Name: "Penn Ltd", PrimaryContact: "PA@example.com", CreditLimit: 50 });
  await post("Customer", { Id: "C-NY", Name: "York Ltd", PrimaryContact: "NY@example.com" });
  await post("Product", { SKU: "P-1", Price: 10 });
  await post("Product", { SKU: "P-2", Price: 4 });
  await post("SalesOrder", { DocNumber: "SO-PA", SellToCustomer: "C-PA", Details: [{ Product: "P-1", Quantity: 2 }] });
  await post("SalesOrder", { DocNumber: "SO-NY", SellToCustomer: "C-NY", Details: [{ Product: "P-2", Quantity: 1 }] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await documents?.close();
});

describe("an MCP agent that does OAuth itself", () => {
  it.skipIf(browser === undefined)(
    "of 2025: finds the authorization server from a 401, gets a token through the browser, queries, orders in a workflow, answers the credit question, commits; the order reads back over HTTP",
    async () => {
      const mcpUrl = `${host.url}/api/mcp`;
      const authorization = new BrowserAuthorization(browser!, {
        tenant: admin.tenantId,
        username: "admin",
        password: PASSWORD,
      });
      const { fetch: recording, exchanges } = recordingFetch();
      const open = () => ({
        client: new Client({ name: "agent", version: "1.0.0" }),
        transport: new StreamableHTTPClientTransport(new URL(mcpUrl), {
          authProvider: authorization,
          fetch: recording,
        }),
      });
      const seen = (from = 0) => exchanges.slice(from).map((e) => `${e.method} ${e.url.pathname} ${e.status}`);

      // no token yet: the SDK follows the 401 to the metadata, registers, and sends the person to consent
      const first = open();
      await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(seen()).toEqual([
        "POST /api/mcp 401",
        "GET /.well-known/oauth-protected-resource/api/mcp 200",
        "GET /.well-known/oauth-authorization-server 200",
        "POST /api/oauth/register 201",
      ]);
      const registration = JSON.parse(exchanges[3]!.body!);
      // the resource's scopes, and offline_access for a refresh token (the server names it)
      expect(registration).toMatchObject({
        redirect_uris: [authorization.redirectUrl],
        scope: "bizdata.read bizdata.write offline_access",
      });
      expect(authorization.discoveryState()).toMatchObject({
        authorizationServerUrl: host.url,
        resourceMetadata: { resource: mcpUrl, authorization_servers: [host.url] },
        authorizationServerMetadata: { issuer: host.url, registration_endpoint: `${host.url}/api/oauth/register` },
      });
      const clientId = authorization.clientInformation()!.client_id;
      const asked = authorization.authorizationUrl!;
      expect(`${asked.origin}${asked.pathname}`).toBe(`${host.url}/api/oauth/authorize`);
      expect(Object.fromEntries(asked.searchParams)).toMatchObject({
        response_type: "code",
        client_id: clientId,
        redirect_uri: authorization.redirectUrl,
        code_challenge_method: "S256",
        scope: "bizdata.read bizdata.write offline_access",
        // the MCP endpoint's resource indicator (RFC 8707), as its metadata names it
        resource: mcpUrl,
      });
      // the person allowed it: the code comes back to the redirect URI from this issuer (RFC 9207)
      expect(authorization.returned!.searchParams.get("iss")).toBe(host.url);

      const exchanged = exchanges.length;
      // the code with the issuer it came from, which the SDK checks (RFC 9207)
      await first.transport.finishAuth(authorization.code(), authorization.returned!.searchParams.get("iss")!);
      expect(seen(exchanged)).toEqual(["POST /api/oauth/token 200"]);
      const tokenRequest = new URLSearchParams(exchanges[exchanged]!.body);
      expect(Object.fromEntries(tokenRequest)).toMatchObject({
        grant_type: "authorization_code",
        client_id: clientId,
        code_verifier: expect.any(String),
        resource: mcpUrl,
      });
      const tokens = authorization.tokens()!;
      expect(tokens).toMatchObject({
        token_type: expect.stringMatching(/^bearer$/i),
        refresh_token: expect.any(String),
      });
      const token = tokens.access_token;
      // an RFC 9068 token for the MCP endpoint, naming the user and the tenant
      expect(headerOf(token).typ).toBe("at+jwt");
      expect(claimsOf(token)).toMatchObject({
        iss: host.url,
        aud: mcpUrl,
        sub: "admin",
        tid: admin.tenantId,
        client_id: clientId,
        scope: "bizdata.read bizdata.write",
      });

      // reconnected, the SDK sends the token: no second consent
      const reconnected = exchanges.length;
      const { client, transport } = open();
      await client.connect(transport);
      try {
        expect(seen(reconnected)[0]).toBe("POST /api/mcp 200");
        expect(authorization.redirects).toBe(1);
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await client.callTool({ name, arguments: args });
          return { isError: result.isError === true, content: result.structuredContent as any };
        };

        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining(["query_SalesOrder", "create_SalesOrder", "workflow_answer", "workflow_commit"]),
        );

        const query = await call("query_SalesOrder", {
          filter: "SellToCustomer/PrimaryContact/MailingAddress/State eq 'PA'",
          select: "DocNumber,TotalPrice",
          expand: "SellToCustomer($select=Id),Details($select=Quantity;$expand=Product($select=SKU))",
        });
        expect(query).toEqual({
          isError: false,
          content: {
            value: [
              {
                Guid: expect.any(String),
                DocNumber: "SO-PA",
                TotalPrice: 20,
                SellToCustomer: { Guid: expect.any(String), Id: "C-PA" },
                Details: [{ Guid: expect.any(String), Quantity: 2, Product: { Guid: expect.any(String), SKU: "P-1" } }],
              },
            ],
          },
        });

        // customer and products by natural key; 8 × 10 + 5 × 4 = 100, over C-PA's limit of 50
        const created = await call("create_SalesOrder", {
          record: {
            DocNumber: "AGENT-1",
            SellToCustomer: "C-PA",
            Details: [
              { Product: "P-1", Quantity: 8 },
              { Product: "P-2", Quantity: 5 },
            ],
          },
          select: "DocNumber,TotalPrice",
        });
        expect(created.isError).toBe(false);
        const { workflowId, record } = created.content;
        expect(created.content).toMatchObject({ staged: "create", record: { DocNumber: "AGENT-1", TotalPrice: 100 } });

        const pending = await call("workflow_commit", {});
        expect(pending.content).toMatchObject({ workflowId, status: "questionPending" });
        expect(pending.content.questions).toEqual([
          expect.objectContaining({
            text: "The order total 100 is over the credit limit 50 of customer C-PA. Save anyway?",
            group: record.Guid,
          }),
        ]);
        const [question] = pending.content.questions;
        const answered = await call("workflow_answer", { promptId: question.promptId, choice: "continue" });
        expect(answered.content).toMatchObject({ answered: [{ promptId: question.promptId, choice: "continue" }] });
        const committed = await call("workflow_commit", { workflowId });
        expect(committed.content).toMatchObject({ workflowId, status: "saved" });

        // plain HTTP with the same token: the API takes the MCP endpoint's audience too
        const read = await fetch(
          `${host.url}/api/SalesOrder?$filter=DocNumber eq 'AGENT-1'&$select=DocNumber,TotalPrice&$expand=SellToCustomer($select=Id),Details($select=Quantity;$orderby=Quantity;$expand=Product($select=SKU))`,
          { headers: { Authorization: `Bearer ${token}` } },
        );
        expect(read.status).toBe(200);
        expect(dataOf(((await read.json()) as any).value)).toEqual([
          {
            Guid: record.Guid,
            DocNumber: "AGENT-1",
            TotalPrice: 100,
            SellToCustomer: { Guid: expect.any(String), Id: "C-PA" },
            Details: [
              { Guid: expect.any(String), Quantity: 5, Product: { Guid: expect.any(String), SKU: "P-2" } },
              { Guid: expect.any(String), Quantity: 8, Product: { Guid: expect.any(String), SKU: "P-1" } },
            ],
          },
        ]);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    },
    180_000,
  );
  it.skipIf(browser === undefined)(
    "of 2026-07-28: known by its client metadata document, registers nothing, and has its question put to the person in the tool call",
    async () => {
      const mcpUrl = `${host.url}/api/mcp`;
      const authorization = new BrowserAuthorization(
        browser!,
        { tenant: admin.tenantId, username: "admin", password: PASSWORD },
        "http://127.0.0.1:47126/callback",
        documents.urlOf("/mcp-agent.json"),
      );
      documents.publish("/mcp-agent.json", { body: authorization.document() });
      const { fetch: recording, exchanges } = recordingFetch();
      const asked: string[] = [];
      const open = () => {
        const client = new Client(
          { name: "agent", version: "2.0.0" },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        client.setRequestHandler("elicitation/create", async (request) => {
          asked.push((request.params as { message: string }).message);
          return { action: "accept", content: { choice: "continue" } };
        });
        return {
          client,
          transport: new StreamableHTTPClientTransport(new URL(mcpUrl), {
            authProvider: authorization,
            fetch: recording,
          }),
        };
      };
      const seen = () => exchanges.map((e) => `${e.method} ${e.url.pathname} ${e.status}`);

      const first = open();
      await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
      // the server says it takes metadata documents: nothing is registered
      expect(seen()).toEqual([
        "POST /api/mcp 401",
        "GET /.well-known/oauth-protected-resource/api/mcp 200",
        "GET /.well-known/oauth-authorization-server 200",
      ]);
      expect(authorization.authorizationUrl!.searchParams.get("client_id")).toBe(authorization.clientMetadataUrl);
      await first.transport.finishAuth(authorization.code(), authorization.returned!.searchParams.get("iss")!);
      expect(claimsOf(authorization.tokens()!.access_token)).toMatchObject({
        client_id: authorization.clientMetadataUrl,
        aud: mcpUrl,
        sub: "admin",
      });
      expect(documents.requests).toEqual(["/mcp-agent.json"]);

      const { client, transport } = open();
      await client.connect(transport);
      try {
        expect(client.getProtocolEra()).toBe("modern");
        const created = await client.callTool({
          name: "create_SalesOrder",
          arguments: {
            record: { DocNumber: "AGENT-2", SellToCustomer: "C-PA", Details: [{ Product: "P-1", Quantity: 9 }] },
          },
        });
        const { workflowId } = created.structuredContent as { workflowId: string };
        const committed = await client.callTool({ name: "workflow_commit", arguments: { workflowId } });
        expect(committed.structuredContent).toMatchObject({
          workflowId,
          status: "saved",
          answered: [{ choice: "continue" }],
        });
        expect(asked).toEqual(["The order total 90 is over the credit limit 50 of customer C-PA. Save anyway?"]);
        const read = await admin.request("GET", "/api/SalesOrder?$filter=DocNumber eq 'AGENT-2'&$select=TotalPrice");
        expect(dataOf(((await read.json()) as any).value)).toEqual([{ Guid: expect.any(String), TotalPrice: 90 }]);
      } finally {
        await client.close();
      }
    },
    180_000,
  );
});
