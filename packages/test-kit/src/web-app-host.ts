/**
 * The web app as a person reaches it: @bizdata/web built with Vite (once per worker, into a
 * folder of its own, so no stale dist/ is ever served), and a host serving it at /app/ on a
 * loopback port over the test database — the reference host (sample model, OAuth server, the
 * demo tenants and users with a small sample data set), or any model and its own seed.
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Model } from "@bizdata/core";
import { sampleModel, seedDemo } from "@bizdata/examples";
import { adminContext, createApp, loadSigningKeys, migrateService } from "@bizdata/host";
import { type WebAppFiles, webAppFiles } from "@bizdata/web";
import { serve } from "@hono/node-server";
import { testDatabase } from "./database.js";
import { oauthHostConfig } from "./oauth-client.js";

const webPackage = fileURLToPath(new URL("../../web", import.meta.url));

let built: Promise<WebAppFiles> | undefined;

/** the app built into a temporary folder, once per worker */
export function builtWebApp(): Promise<WebAppFiles> {
  built ??= (async () => {
    const { build } = await import("vite");
    const outDir = mkdtempSync(join(tmpdir(), "bizdata-web-"));
    await build({
      configFile: join(webPackage, "vite.config.ts"),
      build: { outDir, emptyOutDir: true },
      logLevel: "error",
    });
    return webAppFiles(outDir);
  })();
  return built;
}

export interface WebAppHost {
  /** the origin, e.g. http://127.0.0.1:41234; the app is at `${url}/app/` */
  readonly url: string;
  readonly app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

/** how small the reference host's demo data is in these tests: a page or two of each list */
export const WEB_DEMO_SIZES = {
  countries: 5,
  products: 45,
  customers: 12,
  priceLevels: 3,
  orders: 30,
  linesPerOrder: 2,
  invoices: 6,
  journals: 12,
  seed: 41,
} as const;

let demoSeeded: Promise<void> | undefined;

/**
 * Serves `model` with the web app on (and the OAuth server when `oauth`), after `seed` has run
 * on the test database. Default: the reference host, its demo tenants seeded once per worker.
 */
export async function serveWebAppHost(
  options: { readonly model?: Model; readonly oauth?: boolean; readonly seed?: () => Promise<void> } = {},
): Promise<WebAppHost> {
  const model = options.model ?? sampleModel;
  const db = await testDatabase();
  await migrateService(db, model);
  if (options.seed) await options.seed();
  else {
    demoSeeded ??= seedDemo(adminContext(db, model), WEB_DEMO_SIZES);
    await demoSeeded;
  }
  const [keys, files] = await Promise.all([loadSigningKeys(db), builtWebApp()]);
  let app: ReturnType<typeof createApp> | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: (req, env) => app!.fetch(req, env), hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({
    db,
    model,
    keys,
    config: oauthHostConfig,
    webApp: files,
    ...((options.oauth ?? true) && { oauthServer: { publicUrl: url } }),
  });
  return {
    url,
    app,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
