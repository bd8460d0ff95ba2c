/**
 * The web app (@bizdata/web) at `/app/`: its built page and assets, and `config.json` naming the
 * service root and the OAuth client the host registered for it. The page may load scripts and
 * styles from this host only and talk to this host and the authorization servers its tokens come
 * from. Hashed assets are cached for good; the page and its config are revalidated.
 */
import type { WebAppConfig, WebAppFiles } from "@bizdata/web";
import { type Context, Hono } from "hono";

export const WEB_APP_PATH = "/app";

export interface WebAppRouteSettings {
  readonly files: WebAppFiles;
  readonly config: WebAppConfig;
  /** origins besides this host the page talks to: the token endpoints of the authorization servers */
  readonly connectOrigins: readonly string[];
}

function policy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...connectOrigins].join(" ")}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function webAppRoutes({ files, config, connectOrigins }: WebAppRouteSettings) {
  const headers = {
    "Content-Security-Policy": policy(connectOrigins),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
  };
  const configText = JSON.stringify(config);
  const serve = async (c: Context, path: string) => {
    const file = await files.file(path);
    if (file === undefined) {
      if (path !== "index.html") return c.notFound();
      return c.text(
        `The web app is not built: run \`pnpm --filter @bizdata/web build\` (it is looked for in ${files.folder}).`,
        503,
      );
    }
    const caching = {
      ETag: file.etag,
      "Cache-Control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    };
    if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, { ...headers, ...caching });
    return c.body(file.body, 200, { ...headers, ...caching, "Content-Type": file.contentType });
  };
  return new Hono()
    .get(WEB_APP_PATH, (c) => c.redirect(`${WEB_APP_PATH}/${new URL(c.req.url).search}`, 308))
    .get(`${WEB_APP_PATH}/`, (c) => serve(c, "index.html"))
    .get(`${WEB_APP_PATH}/config.json`, (c) =>
      c.body(configText, 200, { ...headers, "Content-Type": "application/json", "Cache-Control": "no-cache" }),
    )
    .get(`${WEB_APP_PATH}/:path{.+}`, (c) => serve(c, c.req.param("path")));
}
