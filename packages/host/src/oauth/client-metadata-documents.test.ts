/**
 * Clients known by their Client ID Metadata Document (the MCP 2026-07-28 way to register), over
 * real HTTP: the server says it takes them, fetches the document the client id names (here from
 * a local HTTP server publishing it under https://agent.example) when the client first comes,
 * checks it — it must name its own URL, the client, and redirect URIs that include the one asked
 * for, and hold no secret — keeps it as its Cache-Control says, shows who publishes it on the
 * consent page, and issues tokens the API takes. Dynamic registration goes on beside it.
 */
import { type MetadataDocuments, serveMetadataDocuments } from "@bizdata/test-kit/client-metadata";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { PASSWORD } from "@bizdata/test-kit/host-app";
import {
  authorizationUrl,
  exchangeCode,
  type OAuthHost,
  oauthHostConfig,
  type PublicClient,
  pkce,
  registerPublicClient,
  serveOAuthHost,
} from "@bizdata/test-kit/oauth-client";
import { authorizeWithForms } from "@bizdata/test-kit/oauth-forms";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, setUser } from "../tenants/tenant-admin.js";

let documents: MetadataDocuments;
let host: OAuthHost;
const tenant = uniqueTenant("oauth-cimd");
const REDIRECT = "http://127.0.0.1:47125/callback";

/** a client metadata document as an MCP client publishes it */
const documentFor = (clientId: string, more: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: "Published agent",
  client_uri: "https://agent.example",
  redirect_uris: [REDIRECT],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...more,
});

/** publishes a document at `path` and returns the client it describes */
const published = (path: string, document: unknown = documentFor(`https://agent.example${path}`)): PublicClient => {
  documents.publish(path, { body: document, headers: { "Cache-Control": "max-age=300" } });
  return { clientId: documents.urlOf(path), redirectUri: REDIRECT };
};

beforeAll(async () => {
  documents = await serveMetadataDocuments("https://agent.example");
  host = await serveOAuthHost("/api", oauthHostConfig, { fetch: documents.fetch });
  const db = await testDatabase();
  await createTenant(db, tenant);
  await setUser(db, tenant, "alice", PASSWORD, ["admin"]);
});

afterAll(async () => {
  await host?.close();
  await documents?.close();
});

describe("Client ID Metadata Documents", () => {
  it("says so in the authorization-server metadata, beside dynamic registration", async () => {
    const metadata = (await (await fetch(`${host.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(metadata).toMatchObject({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${host.url}/api/oauth/register`,
    });
    // registration goes on: a client registered as before still gets its own id
    expect((await registerPublicClient(host)).clientId).not.toMatch(/^https:/);
  });

  it("fetches the document on the client's first request, shows its publisher, and issues a token the API takes", async () => {
    const client = published("/clients/agent.json");
    const { verifier, challenge } = pkce();
    let consent = "";
    const back = await authorizeWithForms(
      authorizationUrl(host, client, { challenge }),
      REDIRECT,
      { tenant, username: "alice", password: PASSWORD },
      undefined,
      (html) => {
        consent = html;
      },
    );
    expect(back.searchParams.get("iss")).toBe(host.url);
    expect(consent).toContain(
      "<strong>Published agent</strong> (described by agent.example) (returns to 127.0.0.1:47125)",
    );
    expect(consent).toContain("It returns to a program on this computer");
    const res = await exchangeCode(host, client, back.searchParams.get("code")!, verifier);
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string };
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString());
    expect(claims).toMatchObject({ client_id: client.clientId, sub: "alice", tid: tenant });
    const products = await fetch(`${host.url}/api/Product?$select=SKU`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(products.status).toBe(200);
    // fetched once for the authorization and the token request: kept as its Cache-Control says
    expect(documents.requests.filter((p) => p === "/clients/agent.json")).toHaveLength(1);
  });

  it("fetches a new client's document once when 30 of its requests come at once", async () => {
    const client = published("/clients/busy.json");
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => fetch(authorizationUrl(host, client), { redirect: "manual" })),
    );
    // each goes on to the sign-in page
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(303));
    expect(documents.requests.filter((p) => p === "/clients/busy.json")).toHaveLength(1);
  });

  it.each([
    [
      "names another client id",
      (_url: string) => documentFor("https://agent.example/elsewhere.json"),
      "client_id does not match",
    ],
    ["names no client", (url: string) => documentFor(url, { client_name: undefined }), "names no client (client_name)"],
    [
      "holds a secret",
      (url: string) => documentFor(url, { client_secret: "s3cret" }),
      "must not contain client_secret",
    ],
    [
      "uses a shared-secret method",
      (url: string) => documentFor(url, { token_endpoint_auth_method: "client_secret_basic" }),
      "must not use shared-secret token endpoint authentication methods",
    ],
    [
      "returns over plain http to another machine",
      (url: string) => documentFor(url, { redirect_uris: ["http://agent.example/callback"] }),
      "must use https",
    ],
    ["is not JSON", (_url: string) => "<html>not a document</html>", "client_id metadata document fetch failed"],
  ])("refuses a document that %s, with an error page naming why", async (_, document, why) => {
    const path = `/refused/${why.length}-${Math.random().toString(36).slice(2)}.json`;
    const client = published(path, document(documents.urlOf(path)));
    const res = await fetch(authorizationUrl(host, client), { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(why);
  });

  it("refuses a redirect URI the document does not list, and a document that is not there", async () => {
    const client = published("/clients/strict.json");
    const elsewhere = await fetch(authorizationUrl(host, { ...client, redirectUri: "http://127.0.0.1:9/other" }), {
      redirect: "manual",
    });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain(
      "redirect_uri did not match any of the client&#39;s registered redirect_uris",
    );
    const missing = await fetch(
      authorizationUrl(host, { clientId: documents.urlOf("/clients/none.json"), redirectUri: REDIRECT }),
      { redirect: "manual" },
    );
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("client_id metadata document fetch failed");
  });
});
