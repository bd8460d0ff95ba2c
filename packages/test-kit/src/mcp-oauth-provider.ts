/**
 * An MCP client's OAuth side for tests: the SDK's `OAuthClientProvider` kept in memory, whose
 * "redirect to the authorization server" is a person signing in and allowing access in headless
 * Chromium (oauth-browser.ts). The SDK does the rest itself — discovery from the 401 (RFC 9728,
 * RFC 8414), its client metadata document's URL as client id when it has one and the server
 * takes them, else dynamic registration (RFC 7591), PKCE and the token request — so a test sees
 * what an agent host that does OAuth sees. A recording `fetch` shows which requests the SDK made.
 */
import { randomBytes } from "node:crypto";
import type {
  FetchLike,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { authorizeInBrowser, type SignInAnswers } from "./oauth-browser.js";

export class BrowserAuthorization implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata;
  /** the client's metadata document (its client id) when it publishes one; it registers otherwise */
  readonly clientMetadataUrl?: string;
  /** the authorization URL the SDK sent the person to */
  authorizationUrl: URL | undefined;
  /** where the browser came back to (with `code` or `error`) */
  returned: URL | undefined;
  /** how often the SDK sent the person to the authorization server */
  redirects = 0;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly browser: Browser,
    private readonly answers: SignInAnswers,
    // nothing listens there: the browser's request to it is what the helper returns
    readonly redirectUrl = "http://127.0.0.1:47124/callback",
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
    this.clientMetadata = {
      client_name: "MCP agent",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  /** the metadata document this client publishes at `clientMetadataUrl` */
  document(): Record<string, unknown> {
    return { client_id: this.clientMetadataUrl, ...this.clientMetadata };
  }

  state(): string {
    this.#state = randomBytes(16).toString("base64url");
    return this.#state;
  }

  clientInformation() {
    return this.#client;
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    this.#client = client;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.redirects += 1;
    this.returned = await authorizeInBrowser(this.browser, url.href, this.redirectUrl, this.answers);
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no code verifier: the authorization was never started");
    return this.#verifier;
  }

  /** what discovery found, kept (as a client keeps it across the redirect) so the code exchange needs none */
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }

  discoveryState() {
    return this.#discovery;
  }

  /** the code the browser brought back, once its state is the one sent (else why not) */
  code(): string {
    const back = this.returned;
    if (back === undefined) throw new Error("the browser has not come back to the redirect URI");
    if (back.searchParams.get("state") !== this.#state) throw new Error(`state mismatch at ${back.href}`);
    const code = back.searchParams.get("code");
    if (code === null) {
      const error = back.searchParams.get("error");
      throw new Error(`no code at the redirect URI: ${error} (${back.searchParams.get("error_description")})`);
    }
    return code;
  }
}

export interface Exchange {
  readonly method: string;
  readonly url: URL;
  readonly status: number;
  /** the body as sent (JSON, or a form for the token request) */
  readonly body?: string;
}

/** `fetch` that records each request the SDK makes and its answer's status */
export function recordingFetch(): { fetch: FetchLike; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  const recording: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    const body = init?.body;
    exchanges.push({
      method: init?.method ?? "GET",
      url: new URL(url),
      status: response.status,
      ...((typeof body === "string" || body instanceof URLSearchParams) && { body: String(body) }),
    });
    return response;
  };
  return { fetch: recording, exchanges };
}
