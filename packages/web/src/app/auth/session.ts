/**
 * Signing in: with the authorization server the service names (RFC 9728 protected-resource
 * metadata, then RFC 8414 server metadata), by the authorization-code flow with PKCE as a public
 * client (the client id from config.json, else registered once per server with RFC 7591); with
 * the service's own password sign-in when it names no authorization server. Tokens live in the
 * tab's sessionStorage, so a reload keeps the session and closing the tab ends it.
 */
import type { Tokens } from "../service/http.js";
import { challengeOf, randomText } from "./pkce.js";

interface Stored {
  readonly access: string;
  readonly refresh?: string;
  /** where the refresh token is sent: an OAuth token endpoint, or the service's own refresh */
  readonly refreshAt:
    | { readonly kind: "oauth"; readonly endpoint: string; readonly clientId: string }
    | { readonly kind: "service"; readonly url: string };
}

interface Pending {
  readonly state: string;
  readonly verifier: string;
  readonly clientId: string;
  readonly tokenEndpoint: string;
  readonly redirectUri: string;
  readonly resource: string;
}

export type SignInMethod =
  | {
      readonly kind: "oauth";
      readonly issuer: string;
      readonly authorize: string;
      readonly token: string;
      readonly register?: string;
      readonly resource: string;
    }
  | { readonly kind: "password"; readonly signIn: string; readonly refresh: string };

const TOKENS = "bizdata-web:tokens";
const PENDING = "bizdata-web:pending";
const CLIENTS = "bizdata-web:clients";

const json = async (res: Response) => {
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}`);
  return res.json();
};

/** how the service at `root` signs a person in */
export async function discover(root: string): Promise<SignInMethod> {
  const origin = new URL(root).origin;
  const resource = await fetch(`${origin}/.well-known/oauth-protected-resource`)
    .then(json)
    .catch(() => undefined);
  const issuer: string | undefined = resource?.authorization_servers?.[0];
  if (issuer === undefined) return { kind: "password", signIn: `${root}/auth/signin`, refresh: `${root}/auth/refresh` };
  const server = await fetch(`${issuer}/.well-known/oauth-authorization-server`).then(json);
  return {
    kind: "oauth",
    issuer,
    authorize: server.authorization_endpoint,
    token: server.token_endpoint,
    ...(server.registration_endpoint && { register: server.registration_endpoint }),
    resource: resource.resource,
  };
}

/** where the server sends the browser back: this page, without query or fragment */
const redirectUri = () => `${location.origin}${location.pathname}`;

async function clientIdFor(method: Extract<SignInMethod, { kind: "oauth" }>, configured?: string): Promise<string> {
  if (configured !== undefined) return configured;
  const known = JSON.parse(localStorage.getItem(CLIENTS) ?? "{}") as Record<string, string>;
  const key = `${method.issuer} ${redirectUri()}`;
  if (known[key] !== undefined) return known[key];
  if (method.register === undefined) throw new Error("the authorization server registers no clients");
  const registered = await fetch(method.register, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: document.title,
      redirect_uris: [redirectUri()],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  }).then(json);
  localStorage.setItem(CLIENTS, JSON.stringify({ ...known, [key]: registered.client_id }));
  return registered.client_id;
}

/** sends the browser to the authorization server */
export async function startSignIn(method: Extract<SignInMethod, { kind: "oauth" }>, configuredClient?: string) {
  const clientId = await clientIdFor(method, configuredClient);
  const verifier = randomText();
  const pending: Pending = {
    state: randomText(16),
    verifier,
    clientId,
    tokenEndpoint: method.token,
    redirectUri: redirectUri(),
    resource: method.resource,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(method.authorize);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: pending.redirectUri,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: "S256",
    state: pending.state,
    scope: "bizdata.read bizdata.write",
    resource: method.resource,
  }).toString();
  location.assign(url.href);
}

const store = (tokens: Stored) => sessionStorage.setItem(TOKENS, JSON.stringify(tokens));

/** finishes a sign-in the server sent the browser back from (`?code&state`); true when there was one */
export async function finishSignIn(): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const code = params.get("code");
  const error = params.get("error");
  if (code === null && error === null) return false;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? "null") as Pending | null;
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, "", `${location.pathname}${location.hash}`);
  if (error !== null) throw new Error(params.get("error_description") ?? error);
  if (pending === null || params.get("state") !== pending.state) throw new Error("the answer is not for this sign-in");
  const tokens = await fetch(pending.tokenEndpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: code!,
      redirect_uri: pending.redirectUri,
      client_id: pending.clientId,
      code_verifier: pending.verifier,
      resource: pending.resource,
    }),
  }).then(json);
  store({
    access: tokens.access_token,
    ...(tokens.refresh_token && { refresh: tokens.refresh_token }),
    refreshAt: { kind: "oauth", endpoint: pending.tokenEndpoint, clientId: pending.clientId },
  });
  return true;
}

/** the service's own sign-in (POST {root}/auth/signin): false when the credentials are wrong */
export async function passwordSignIn(
  method: Extract<SignInMethod, { kind: "password" }>,
  tenant: string,
  username: string,
  password: string,
): Promise<boolean> {
  const res = await fetch(method.signIn, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: tenant, Username: username, Password: password }),
  });
  if (res.status === 401) return false;
  const tokens = await json(res);
  store({
    access: tokens.access_token,
    refresh: tokens.refresh_token,
    refreshAt: { kind: "service", url: method.refresh },
  });
  return true;
}

export function signOut(): void {
  sessionStorage.removeItem(TOKENS);
}

/** the stored tokens, refreshed through where they came from */
export const sessionTokens: Tokens = {
  access: () => (JSON.parse(sessionStorage.getItem(TOKENS) ?? "null") as Stored | null)?.access,
  async refresh() {
    const stored = JSON.parse(sessionStorage.getItem(TOKENS) ?? "null") as Stored | null;
    if (stored?.refresh === undefined) return false;
    const at = stored.refreshAt;
    const res =
      at.kind === "oauth"
        ? await fetch(at.endpoint, {
            method: "POST",
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "refresh_token",
              refresh_token: stored.refresh,
              client_id: at.clientId,
            }),
          })
        : await fetch(at.url, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ refresh_token: stored.refresh }),
          });
    if (!res.ok) {
      signOut();
      return false;
    }
    const tokens = await res.json();
    store({ access: tokens.access_token, refresh: tokens.refresh_token ?? stored.refresh, refreshAt: at });
    return true;
  },
};
