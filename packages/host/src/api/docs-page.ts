/**
 * The API reference page (api-conventions: OpenAPI and docs): Swagger UI over the service's
 * OpenAPI document, served from the `swagger-ui-dist` package's own files, so the page needs
 * nothing but this host (no CDN, no online validator). A sign-in or refresh tried on the page
 * authorizes the page with the access token it answers, so a person can sign in and try
 * requests without copying tokens.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** the package's files the page loads, and their types; nothing else of the package is served */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
  "oauth2-redirect.html": "text/html; charset=utf-8",
  "oauth2-redirect.js": "text/javascript; charset=utf-8",
};

export interface DocsAsset {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  /** changes with the package version, so a browser revalidates after an upgrade */
  readonly etag: string;
}

const assets = new Map<string, Promise<DocsAsset>>();
let version: Promise<string> | undefined;

/** one of the page's files from the package (read once, then kept), or undefined for any other name */
export function docsAsset(name: string): Promise<DocsAsset> | undefined {
  const contentType = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (contentType === undefined) return undefined;
  let asset = assets.get(name);
  if (asset === undefined) {
    version ??= readFile(join(dist, "package.json"), "utf8").then((text) => JSON.parse(text).version as string);
    asset = Promise.all([readFile(join(dist, name)), version]).then(([file, v]) => ({
      body: new Uint8Array(file),
      contentType,
      etag: `"swagger-ui-${v}-${name}"`,
    }));
    // a failed read is not kept: the next request tries again
    asset.catch(() => assets.delete(name));
    assets.set(name, asset);
  }
  return asset;
}

/** what the page's script needs to know, all addresses absolute paths on this host */
export interface DocsPageSettings {
  readonly title: string;
  readonly openApiUrl: string;
  /** where the page's files are: `{assetsPath}/swagger-ui-bundle.js` … */
  readonly assetsPath: string;
  /** the sign-in and refresh addresses, whose answers authorize the page */
  readonly tokenPaths: readonly string[];
  /** the security scheme the access token is for */
  readonly bearerScheme: string;
}

/** JSON that may stand inside a `<script>` element: no `<` can close it */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function docsPageHtml(settings: DocsPageSettings): string {
  const assets = escapeHtml(settings.assetsPath);
  const config = {
    openApiUrl: settings.openApiUrl,
    tokenPaths: settings.tokenPaths,
    bearerScheme: settings.bearerScheme,
    oauth2RedirectPath: `${settings.assetsPath}/oauth2-redirect.html`,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(settings.title)}</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${assets}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="docs"></div>
<script type="application/json" id="docs-config">${scriptJson(config)}</script>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/docs-page.js"></script>
</body>
</html>
`;
}

/**
 * The page's own script, served as a file so the page runs under a CSP without inline scripts.
 * `validatorUrl: null` keeps Swagger UI from sending the document to its online validator.
 */
export const DOCS_PAGE_SCRIPT = `"use strict";
(function () {
  var config = JSON.parse(document.getElementById("docs-config").textContent);
  var tokenUrls = config.tokenPaths.map(function (path) { return new URL(path, location.href).href; });
  var ui = SwaggerUIBundle({
    url: config.openApiUrl,
    dom_id: "#docs",
    deepLinking: true,
    // a model has many entity sets: show them closed, with a filter by name
    docExpansion: "none",
    filter: true,
    displayRequestDuration: true,
    validatorUrl: null,
    oauth2RedirectUrl: new URL(config.oauth2RedirectPath, location.href).href,
    // a sign-in or refresh tried on the page authorizes the page with the access token it answers
    responseInterceptor: function (response) {
      var url = String(response.url || "").split("?")[0];
      var body = response.body;
      if (response.ok && tokenUrls.indexOf(url) >= 0 && body && typeof body.access_token === "string") {
        ui.preauthorizeApiKey(config.bearerScheme, body.access_token);
      }
      return response;
    },
  });
  ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true });
})();
`;

/**
 * The page may load its scripts and styles from this host only; it talks to this host and to
 * the OAuth issuers a person may authorize with (`connectOrigins`).
 */
export function docsPagePolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Swagger UI sets element styles
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...connectOrigins].join(" ")}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
