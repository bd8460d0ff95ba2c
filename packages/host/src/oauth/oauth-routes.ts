/**
 * Mounts the OAuth 2.1 server on the host's Hono app. oidc-provider is a Koa application: its
 * requests are handed to it on @hono/node-server's own request and response objects, so it reads
 * the body and writes the answer itself. The sign-in and consent pages are the host's (they use
 * the host's password check and sign-in throttle), served under `<prefix>/interaction/:uid`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Database, ServiceError } from "@bizdata/core";
import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { InteractionResults, default as Provider } from "oidc-provider";
import type { Logger } from "pino";
import { serverSecret } from "../auth/server-secret.js";
import { checkSignIn } from "../auth/sign-in-check.js";
import type { ThrottleSettings } from "../auth/sign-in-throttle.js";
import type { SigningKeys } from "../auth/signing-keys.js";
import { requestClientAddress, requestOf } from "../observability/request-context.js";
import { formTokens } from "./form-tokens.js";
import { type ClientView, consentPage, errorPage, PAGE_POLICY, signInPage } from "./oauth-pages.js";
import {
  accountId,
  createProvider,
  isClientIdUrl,
  isLoopbackUri,
  type OAuthServerSettings,
  parseAccountId,
} from "./oauth-provider.js";
import { defaultRegistration, type RegistrationSettings, registrationGate } from "./registration-limit.js";

export interface OAuthServerOptions {
  readonly db: Database;
  readonly keys: SigningKeys;
  readonly settings: OAuthServerSettings;
  readonly logger: Logger;
  readonly throttle?: ThrottleSettings;
  readonly registration?: RegistrationSettings;
}

type Interaction = Awaited<ReturnType<Provider["interactionDetails"]>>;

interface Server {
  readonly provider: Provider;
  readonly errors: Awaited<ReturnType<typeof createProvider>>["errors"];
  readonly handle: ReturnType<Provider["callback"]>;
  readonly forms: ReturnType<typeof formTokens>;
}

const PAGE_HEADERS = {
  "Content-Security-Policy": PAGE_POLICY,
  "Cache-Control": "no-store",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

const page = (c: Context, status: 200 | 400 | 401 | 403 | 429, html: string, headers: Record<string, string> = {}) =>
  c.html(html, status, { ...PAGE_HEADERS, ...headers });

const expired = (c: Context) =>
  page(
    c,
    400,
    errorPage(
      "This sign-in has expired",
      "The sign-in request was already finished or has expired. Go back to the application and start again.",
    ),
  );

/**
 * @hono/node-server's request and response, which the provider answers on, told the host's public
 * address (the provider builds its URLs and cookie flags from forwarded headers)
 */
function nodeObjects(c: Context, publicUrl: URL): { incoming: IncomingMessage; outgoing: ServerResponse } {
  const env = c.env as Partial<HttpBindings> | undefined;
  if (env?.incoming === undefined || env.outgoing === undefined) {
    throw new ServiceError(
      "NotImplemented",
      "The OAuth server answers only when the app is served by @hono/node-server (serve({ fetch: app.fetch })).",
    );
  }
  const { incoming, outgoing } = env;
  incoming.headers["x-forwarded-host"] = publicUrl.host;
  incoming.headers["x-forwarded-proto"] = publicUrl.protocol.slice(0, -1);
  // the host has resolved the client's address already (TRUSTED_PROXIES); the provider needs none
  delete incoming.headers["x-forwarded-for"];
  return { incoming, outgoing };
}

/** tells @hono/node-server the answer is written, with its status for the request log and metrics */
function alreadySent(status: number): Response {
  const res = new Response(null, { status, headers: RESPONSE_ALREADY_SENT.headers });
  // @hono/node-server writes its own light Response objects without looking for that header; reading
  // the body turns this one into a full Response, whose header it honours
  void res.body;
  return res;
}

/** a throttle's wait in words: blocks start at a second and grow to minutes */
const waitText = (seconds: number) =>
  seconds < 60 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minutes`;

const text = (value: unknown, max: number) =>
  typeof value === "string" && value.length > 0 && value.length <= max ? value : undefined;

export function mountOAuthServer<A extends Hono<any>>(app: A, options: OAuthServerOptions): void {
  const { db, keys, settings, logger } = options;
  const { prefix } = settings;
  const publicUrl = new URL(settings.issuer);

  // built on first use (it needs the shared secret from the database); built again after a failure
  let ready: Promise<Server> | undefined;
  const server = () => {
    ready ??= (async () => {
      const secret = await serverSecret(db, "cookies");
      const { provider, errors } = await createProvider(db, keys, [secret], settings);
      provider.on("server_error", (_ctx, err) => logger.error({ err }, "OAuth server error"));
      return { provider, errors, handle: provider.callback(), forms: formTokens(secret) };
    })().catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };

  /** hands the request to the provider, as if it came to `path` (default: as it came) */
  const handOver = async (c: Context, path?: string) => {
    const { incoming, outgoing } = nodeObjects(c, publicUrl);
    const { handle } = await server();
    if (path !== undefined) incoming.url = path;
    const id = requestOf(c)?.id;
    if (id !== undefined) outgoing.setHeader("X-Request-Id", id);
    await handle(incoming, outgoing);
    return alreadySent(outgoing.statusCode);
  };

  /** the interaction the browser's cookie names, if it is the one in the URL and still open */
  const interactionOf = async (c: Context): Promise<Interaction | undefined> => {
    const { incoming, outgoing } = nodeObjects(c, publicUrl);
    const { provider, errors } = await server();
    try {
      const details = await provider.interactionDetails(incoming, outgoing);
      return details.uid === c.req.param("uid") ? details : undefined;
    } catch (err) {
      if (err instanceof errors.SessionNotFound) return undefined;
      throw err;
    }
  };

  const clientView = async (provider: Provider, details: Interaction): Promise<ClientView> => {
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    const redirect = URL.canParse(String(details.params.redirect_uri))
      ? new URL(String(details.params.redirect_uri))
      : undefined;
    // a client metadata document: its client id is the https URL of the document
    const published = isClientIdUrl(clientId) ? new URL(clientId).host : undefined;
    return {
      name: client?.clientName ?? clientId,
      redirectHost: redirect === undefined ? "an unknown address" : redirect.host || redirect.protocol,
      ...(published !== undefined && {
        publishedBy: published,
        loopbackOnly: (client?.redirectUris ?? []).every(isLoopbackUri),
      }),
    };
  };

  /** the scopes the consent is asked for: the server's own and the API's */
  const askedScopes = (details: Interaction): string[] => {
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    return [
      ...new Set([...(missing.missingOIDCScope ?? []), ...Object.values(missing.missingResourceScopes ?? {}).flat()]),
    ];
  };

  const render = async (
    c: Context,
    details: Interaction,
    status: 200 | 400 | 401 | 429 = 200,
    failure?: { error: string; tenant?: string; username?: string; headers?: Record<string, string> },
  ) => {
    const { provider, forms } = await server();
    const view = { action: c.req.path, csrf: forms.tokenFor(details.uid), client: await clientView(provider, details) };
    if (details.prompt.name === "login") {
      return page(
        c,
        status,
        signInPage({
          ...view,
          ...(failure && { error: failure.error }),
          ...(failure?.tenant && { tenant: failure.tenant }),
          ...(failure?.username && { username: failure.username }),
        }),
        failure?.headers,
      );
    }
    const { tenantId, username } = parseAccountId(details.session?.accountId ?? "");
    return page(c, status, consentPage({ ...view, tenant: tenantId, username, scopes: askedScopes(details) }));
  };

  const grantFor = async ({ provider, errors }: Server, details: Interaction): Promise<string> => {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    if (grant === undefined) throw new errors.SessionNotFound("grant not found");
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(" "));
    }
    return grant.save();
  };

  // RFC 8414 metadata is the provider's discovery document, which also answers as OpenID's
  app.get("/.well-known/oauth-authorization-server", (c) => handOver(c, "/.well-known/openid-configuration"));
  app.get("/.well-known/openid-configuration", (c) => handOver(c));

  app.get(`${prefix}/interaction/:uid`, async (c) => {
    const details = await interactionOf(c);
    return details === undefined ? expired(c) : render(c, details);
  });

  app.post(`${prefix}/interaction/:uid`, bodyLimit({ maxSize: 16 * 1024 }), async (c) => {
    const details = await interactionOf(c);
    if (details === undefined) return expired(c);
    const oauth = await server();
    const { provider, forms } = oauth;
    const form = await c.req.parseBody();
    if (!forms.matches(details.uid, form.csrf)) {
      return page(
        c,
        403,
        errorPage(
          "This form was not sent from its page",
          "Nothing was changed. Go back to the application and start again.",
        ),
      );
    }
    const { incoming, outgoing } = nodeObjects(c, publicUrl);
    const finish = async (result: InteractionResults) =>
      c.redirect(await provider.interactionResult(incoming, outgoing, result), 303);
    if (form.decision === "deny") {
      return finish({ error: "access_denied", error_description: "The user did not allow access." });
    }
    if (details.prompt.name === "login") {
      const tenant = text(form.tenant, 64);
      const username = text(form.username, 128);
      const password = text(form.password, 1024);
      if (tenant === undefined || username === undefined || password === undefined) {
        return render(c, details, 400, { error: "Enter the tenant, your user name and your password." });
      }
      const outcome = await checkSignIn(db, tenant, username, password, requestClientAddress(c), options.throttle);
      if (outcome.kind === "throttled") {
        return render(c, details, 429, {
          error: `Too many failed sign-ins; try again in ${waitText(outcome.retryAfter)}.`,
          tenant,
          username,
          headers: { "Retry-After": String(outcome.retryAfter) },
        });
      }
      if (outcome.kind === "rejected") {
        return render(c, details, 401, {
          error: "The tenant, user name or password is not correct.",
          tenant,
          username,
        });
      }
      return finish({ login: { accountId: accountId(tenant, username) } });
    }
    if (details.prompt.name === "consent" && form.decision === "accept") {
      const grantId = await grantFor(oauth, details);
      return finish({ consent: details.grantId ? {} : { grantId } });
    }
    return render(c, details, 400);
  });

  const registrationRefusal = registrationGate(db, options.registration ?? defaultRegistration);
  app.post(`${prefix}/register`, async (c) => (await registrationRefusal(c)) ?? handOver(c));

  app.all(`${prefix}/*`, (c) => handOver(c));
}
