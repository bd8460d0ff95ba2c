/**
 * The OAuth 2.1 authorization server (oidc-provider) as the host configures it: authorization
 * code with PKCE (S256, always required), clients known by their Client ID Metadata Document (a
 * client id that is an https URL, fetched and checked when first used: MCP 2026-07-28's
 * preference) beside open dynamic client registration (RFC 7591) for public and confidential
 * clients, refresh tokens rotated on every use, revocation, and resource indicators (RFC 8707)
 * for this service's API. Access tokens are RFC 9068 JWTs (`typ: at+jwt`)
 * signed with the host's signing key, naming the user (`sub`), the tenant (`tid`) and the grant
 * (`gid`), so the API's resource-server code checks them like any delegated token, and refuses
 * them once their grant is revoked (a code or a refresh token used twice, revocation).
 */
import type { Database } from "@bizdata/core";
import type { Configuration, KoaContextWithOIDC, default as Provider } from "oidc-provider";
import { verificationKey } from "../auth/access-tokens.js";
import { ALGORITHM, type SigningKeys } from "../auth/signing-keys.js";
import type { GrantStanding } from "../auth/token-grants.js";
import { SCOPES, type TrustedIssuer } from "../auth/trusted-issuers.js";
import { findUser } from "../tenants/tenant-admin.js";
import { errorPage } from "./oauth-pages.js";
import { stateAdapter } from "./state-adapter.js";

export interface OAuthServerSettings {
  /** the issuer identifier: the host's public address (PUBLIC_URL) */
  readonly issuer: string;
  /** the resource indicators tokens may be asked for; the first is the default */
  readonly resources: readonly [string, ...string[]];
  /** the path the server's endpoints live under (`<basePath>/oauth`) */
  readonly prefix: string;
  /** seconds */
  readonly accessTokenTtl: number;
  /** seconds: how long a consent and its refresh tokens last */
  readonly refreshTokenTtl: number;
  /**
   * How a client's metadata document is fetched (default: Node's fetch, through the provider's
   * dispatcher that refuses addresses of this machine and of private networks)
   */
  readonly fetch?: typeof fetch;
  /**
   * Public clients the host registers itself (the web app it serves), known without dynamic
   * registration: PKCE, no secret, their redirect URIs fixed here
   */
  readonly clients?: readonly {
    readonly clientId: string;
    readonly name: string;
    readonly redirectUris: readonly string[];
  }[];
}

/** an account is a user of a tenant: `<tenant>/<username>` (tenant ids have no `/`) */
export const accountId = (tenantId: string, username: string) => `${tenantId}/${username}`;

export function parseAccountId(id: string): { tenantId: string; username: string } {
  const slash = id.indexOf("/");
  return { tenantId: id.slice(0, slash), username: id.slice(slash + 1) };
}

/** the scopes a token for this API may carry (offline_access and openid are the server's own) */
export const API_SCOPES = `${SCOPES.read} ${SCOPES.write}`;

/** how long the sign-in and consent pages stay usable, seconds */
const INTERACTION_TTL = 10 * 60;
/** how long the server remembers a browser's sign-in, seconds */
const SESSION_TTL = 60 * 60;

const originOf = (uri: string) => (URL.canParse(uri) ? new URL(uri).origin : undefined);

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** a redirect URI to this machine (a native app's loopback listener) */
export const isLoopbackUri = (uri: string) => URL.canParse(uri) && LOOPBACK.has(new URL(uri).hostname);

/** a client id that names a client metadata document: an https URL with a path */
export const isClientIdUrl = (id: string) =>
  URL.canParse(id) && new URL(id).protocol === "https:" && new URL(id).pathname !== "/";

/** how long a fetched metadata document is kept, seconds: its Cache-Control within these bounds */
const METADATA_DOCUMENT_CACHE = { min: 60, max: 24 * 3600 };

/**
 * OAuth 2.1 (section 2.3.1): a code travels to its redirect URI, so plain http only to this
 * machine (a native app's loopback listener). The provider itself refuses fragments, non-URIs and
 * custom schemes for web clients.
 */
function redirectUriProblem(uris: readonly string[] | undefined): string | undefined {
  for (const uri of uris ?? []) {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    if (url?.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
      return `redirect_uris: ${uri} must use https (plain http only to 127.0.0.1, [::1] or localhost).`;
    }
  }
  return undefined;
}

/**
 * A client's registered `scope` without the API's scopes. MCP clients register with the scopes
 * the resource metadata names (bizdata.read bizdata.write), but the provider takes only its own
 * scopes (openid, offline_access) there: the API's are granted per resource, to every client
 * (getResourceServerInfo below), so the client is registered without them (RFC 7591 §3.2.1 lets
 * the server replace a requested value). Any other scope is still refused by the provider.
 */
function withoutApiScopes(scope: string | undefined): string | undefined {
  const api = new Set<string>(Object.values(SCOPES));
  const kept = (scope ?? "").split(" ").filter((s) => s !== "" && !api.has(s));
  return kept.length === 0 ? undefined : kept.join(" ");
}

/** how the API checks this server's tokens for `audience` (trusted-issuers.ts): the host's own keys, its own users */
export const ownIssuer = (
  keys: SigningKeys,
  settings: OAuthServerSettings,
  audience: TrustedIssuer["audience"],
  grants: GrantStanding,
): TrustedIssuer => ({
  issuer: settings.issuer,
  audience,
  algorithms: [ALGORITHM],
  keys: verificationKey(keys),
  grants,
});

/**
 * oidc-provider, loaded only when the server runs: a host without it neither pays for loading it
 * nor hears its warning about Node 20 (it asks for Node 22; it runs on 20 as tested here).
 */
export async function createProvider(
  db: Database,
  keys: SigningKeys,
  cookieKeys: readonly string[],
  settings: OAuthServerSettings,
): Promise<{ provider: Provider; errors: typeof import("oidc-provider").errors }> {
  const { default: OidcProvider, errors } = await import("oidc-provider");
  const { prefix, resources } = settings;
  const configuration: Configuration = {
    adapter: stateAdapter(db),
    clients: (settings.clients ?? []).map((client) => ({
      client_id: client.clientId,
      client_name: client.name,
      redirect_uris: [...client.redirectUris],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    })),
    jwks: { keys: [keys.current.jwk as never] },
    cookies: {
      keys: [...cookieKeys],
      names: { session: "_bizdata_oauth", interaction: "_bizdata_interaction", resume: "_bizdata_resume" },
    },
    async findAccount(_ctx, id) {
      const { tenantId, username } = parseAccountId(id);
      // a user removed since the grant: codes and refresh tokens for them are refused
      if ((await findUser(db, tenantId, username)) === undefined) return undefined;
      return { accountId: id, claims: () => ({ sub: id }) };
    },
    scopes: ["openid", "offline_access"],
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      id_token_signed_response_alg: ALGORITHM,
      token_endpoint_auth_method: "client_secret_basic",
    },
    enabledJWA: { idTokenSigningAlgValues: [ALGORITHM] },
    // RFC 7591's software statement fields are kept; their validator is where the provider lets
    // a host check (and adjust) a client's whole metadata, so it checks the redirect URIs and
    // the scope there too
    // the same check for a client metadata document as for a registration
    extraClientMetadata: {
      properties: ["software_id", "software_version"],
      validator(_ctx, key, _value, metadata) {
        if (key !== "software_id") return;
        const problem = redirectUriProblem(metadata.redirect_uris);
        // a description starting with redirect_uris makes it RFC 7591's invalid_redirect_uri
        if (problem !== undefined) throw new errors.InvalidClientMetadata(problem);
        const scope = withoutApiScopes(metadata.scope);
        if (scope === undefined) delete metadata.scope;
        else metadata.scope = scope;
        // a metadata document's client has no secret: the default method (client_secret_basic)
        // becomes none, a shared-secret method it names itself having been refused on fetch
        if (
          isClientIdUrl(String(metadata.client_id)) &&
          metadata.token_endpoint_auth_method === "client_secret_basic"
        ) {
          metadata.token_endpoint_auth_method = "none";
        }
      },
    },
    ...(settings.fetch && { fetch: settings.fetch }),
    // a public client (an agent, a browser app) may call the token endpoint from its own origin
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === "none" && client.redirectUris!.some((uri) => originOf(uri) === origin),
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // a DPoP-bound token would reach the API as a plain bearer token: the API does not check proofs
      dPoP: { enabled: false },
      // a client revokes only its own tokens; another's is answered 200 and left alone (RFC 7009)
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // the provider fetches the document (2.5 s, no redirects, its size bounded), checks that it
      // names its own URL and holds no secret, and keeps it as its Cache-Control says
      clientIdMetadataDocument: {
        enabled: true,
        ack: "draft-02",
        cacheDuration: METADATA_DOCUMENT_CACHE,
        // MCP asks for a name (client_name) beside client_id and redirect_uris
        async allowClient(_ctx, client) {
          if (!client.clientName) {
            throw new errors.InvalidClientMetadata("The client metadata document names no client (client_name).");
          }
          return true;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resources[0],
        // the token request may leave out the resource the user consented to
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, resource) {
          if (!resources.includes(resource))
            throw new errors.InvalidTarget(`${resource} is not a resource of this server.`);
          return {
            scope: API_SCOPES,
            audience: resource,
            accessTokenTTL: settings.accessTokenTtl,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: ALGORITHM } },
          };
        },
      },
    },
    formats: {
      customizers: {
        // RFC 9068 with the host's claims: `sub` the user name, `tid` the tenant, `gid` the grant
        // the API checks on every request (token-grants.ts)
        async jwt(_ctx, token, parts) {
          if (!("accountId" in token) || typeof token.accountId !== "string") return;
          const { tenantId, username } = parseAccountId(token.accountId);
          parts.payload.sub = username;
          parts.payload.tid = tenantId;
          if ("grantId" in token && typeof token.grantId === "string") parts.payload.gid = token.grantId;
        },
      },
    },
    // refresh tokens go to every client allowed the refresh_token grant (OAuth 2.1 needs no
    // offline_access) and outlive the browser session
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    expiresWithSession: async () => false,
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: settings.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: settings.accessTokenTtl,
      Grant: settings.refreshTokenTtl,
      // a rotated token keeps its family's end: a consent lasts refreshTokenTtl, however often used
      RefreshToken: (ctx) => ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? settings.refreshTokenTtl,
      Interaction: INTERACTION_TTL,
      Session: SESSION_TTL,
    },
    interactions: { url: async (_ctx, interaction) => `${prefix}/interaction/${interaction.uid}` },
    routes: {
      authorization: `${prefix}/authorize`,
      token: `${prefix}/token`,
      registration: `${prefix}/register`,
      jwks: `${prefix}/jwks`,
      revocation: `${prefix}/revoke`,
    },
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = "html";
      ctx.body = errorPage("The authorization request cannot go on", out.error_description ?? out.error);
    },
  };
  const provider = new OidcProvider(settings.issuer, configuration);
  // the metadata names the API's scopes too, which the provider keeps per resource server
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === "discovery" && ctx.body && typeof ctx.body === "object") {
      const body = ctx.body as { scopes_supported: string[] };
      body.scopes_supported = [...body.scopes_supported, SCOPES.read, SCOPES.write];
    }
  });
  // the host tells the provider its public address through forwarded headers (oauth-routes.ts)
  provider.proxy = true;
  return { provider, errors };
}
