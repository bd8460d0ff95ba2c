/**
 * The service's OpenAPI document at `{base}/openapi.json` and the API reference page at `/docs`,
 * beside `/health` outside the service root (api-conventions: OpenAPI and docs). Both are public: a tool or a person reads
 * them before signing in, and the page signs in through the API itself. The document describes
 * the whole model, every method included; a tenant that lacks a method's feature is answered
 * 403 when it calls it, and `$metadata` (which needs a token) is the tenant's own view.
 */
import type { Model } from "@bizdata/core";
import { BEARER, type OAuthIssuer, openApiDocument, TOKEN_PATHS } from "@bizdata/odata";
import { Hono } from "hono";
import { SCOPES } from "../auth/trusted-issuers.js";
import { DOCS_PAGE_SCRIPT, docsAsset, docsPageHtml, docsPagePolicy } from "./docs-page.js";

export interface OpenApiRouteSettings {
  readonly model: Model;
  /** the service root, as createApp normalized it */
  readonly basePath: string;
  /** the server page size, the largest `$top` */
  readonly maxPageSize: number;
  /** the issuers whose tokens the API takes: this host's own OAuth server when on, and OAUTH_ISSUERS */
  readonly oauthIssuers: readonly OAuthIssuer[];
}

/** the origins a browser talks to when authorizing with the issuers: discovery and token endpoints */
function issuerOrigins(issuers: readonly OAuthIssuer[]): string[] {
  const origins = new Set<string>();
  for (const { issuer, tokenEndpoint } of issuers) {
    for (const url of [issuer, tokenEndpoint]) {
      if (url === undefined || !URL.canParse(url)) continue;
      origins.add(new URL(url).origin);
    }
  }
  return [...origins];
}

export function openApiRoutes({ model, basePath, maxPageSize, oauthIssuers }: OpenApiRouteSettings) {
  // a model does not change while it is served: the document is built on first use and kept
  let document: { readonly text: string; readonly title: string } | undefined;
  const built = () => {
    if (document === undefined) {
      const doc = openApiDocument(model, {
        serverUrl: basePath,
        maxPageSize,
        ...(oauthIssuers.length > 0 && { oauth: { issuers: oauthIssuers, scopes: SCOPES } }),
      });
      document = { text: JSON.stringify(doc), title: doc.info.title };
    }
    return document;
  };
  const assetsPath = "/docs";
  const policy = docsPagePolicy(issuerOrigins(oauthIssuers));
  const pageHeaders = {
    "Content-Security-Policy": policy,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
  return new Hono()
    .get(`${basePath}/openapi.json`, (c) =>
      c.body(built().text, 200, { "Content-Type": "application/json", "Cache-Control": "no-cache" }),
    )
    .get(assetsPath, (c) =>
      c.html(
        docsPageHtml({
          title: `${built().title} reference`,
          openApiUrl: `${basePath}/openapi.json`,
          assetsPath,
          tokenPaths: TOKEN_PATHS.map((path) => `${basePath}${path}`),
          bearerScheme: BEARER,
        }),
        200,
        pageHeaders,
      ),
    )
    .get(`${assetsPath}/:file`, async (c) => {
      const file = c.req.param("file");
      // the page's own script, in this route: a fixed path beside this parameter would leave every
      // request of the app to Hono's slower router
      if (file === "docs-page.js") {
        const headers = { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" };
        return c.body(DOCS_PAGE_SCRIPT, 200, headers);
      }
      const asset = docsAsset(file);
      if (asset === undefined) return c.notFound();
      const { body, contentType, etag } = await asset;
      const headers = { ETag: etag, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };
      if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
      return c.body(body, 200, {
        ...headers,
        "Content-Type": contentType,
        // the OAuth redirect page runs under the same policy as the page that opened it
        ...(contentType.startsWith("text/html") && pageHeaders),
      });
    });
}
