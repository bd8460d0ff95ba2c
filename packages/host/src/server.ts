/**
 * Starts a host for the caller's application: open the database, migrate the model, seed the
 * application's demo set into an empty embedded database (never into PostgreSQL: `bizdata seed`
 * does that on request), then listen.
 */
import type { Server } from "node:http";
import { describeDatabase, openDatabase } from "@bizdata/core";
import { webAppFiles } from "@bizdata/web";
import { serve } from "@hono/node-server";
import type { Logger } from "pino";
import { adminContext } from "./admin/admin-context.js";
import { createApp } from "./app.js";
import { loadSigningKeys } from "./auth/signing-keys.js";
import type { BizdataConfig } from "./bizdata-config.js";
import { ChangeStreams } from "./changes/change-streams.js";
import type { HostConfig, HttpTimeouts } from "./config.js";
import { ChangeLogPruner } from "./lifecycle/change-log-pruner.js";
import { drainable } from "./lifecycle/graceful-shutdown.js";
import { RateLimits } from "./limits/rate-limits.js";
import { flushed, hostLogger } from "./observability/host-logger.js";
import { migrateService, migrationAdvice } from "./schema.js";
import { hasTenants } from "./tenants/tenant-admin.js";
import { WebhookDeliverer } from "./webhooks/webhook-deliverer.js";

/**
 * Node checks its timeouts every `connectionsCheckingInterval` (30 s by default), so a connection
 * outlives its timeout by up to that much: checked at a tenth of the headers timeout instead.
 */
const httpServerOptions = ({ headersTimeout, requestTimeout }: HttpTimeouts) => ({
  headersTimeout,
  requestTimeout,
  connectionsCheckingInterval: Math.max(250, Math.floor(headersTimeout / 10)),
});

/** the names of this machine a host on a loopback address is reached by */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The host names the MCP endpoint answers to: on a loopback address (the default HOST) those of
 * this machine and PUBLIC_URL's, so that a page that rebinds its own name to 127.0.0.1 is refused
 * (MCP transport security); any name on another address, where clients reach the host by names
 * it cannot know.
 */
function mcpHostsFor(host: string, publicUrl: string | undefined): readonly string[] | undefined {
  const listening = host.startsWith("[") ? host : host.includes(":") ? `[${host}]` : host;
  if (!LOOPBACK_NAMES.includes(listening.toLowerCase())) return undefined;
  return [...LOOPBACK_NAMES, ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname.toLowerCase()])];
}

export interface StartOptions {
  /** where the host logs (default: pino on standard output at LOG_LEVEL): a server it is embedded in may pass its own */
  readonly logger?: Logger;
}

/**
 * @example
 * const host = await startHost(loadConfig(), { model });
 * console.log(host.url); // host.app, host.db, await host.close()
 */
export async function startHost(
  config: HostConfig,
  { model, seed, demo: demoSet, oauthServer, webApp }: BizdataConfig,
  { logger = hostLogger(config.logLevel) }: StartOptions = {},
) {
  const dbOptions = {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    ...config.postgres,
    readReplicas: config.readReplicas,
    changeLog: config.changeLog.enabled,
  };
  const db = await openDatabase(dbOptions);
  for (const advice of migrationAdvice(await migrateService(db, model))) logger.warn(advice);
  const embedded = db.driver === "pglite";
  const demo = embedded ? demoSet : undefined;
  if (demo && seed && !(await hasTenants(db))) {
    logger.info("empty embedded database: seeding the demo set");
    await seed(adminContext(db, model), []);
  }
  // PGlite runs no autovacuum: refresh planner statistics now and then, or plans go stale as data grows
  const analyze = embedded
    ? setInterval(() => {
        db.query({ sql: "ANALYZE", params: [] }).catch((err: unknown) => logger.warn({ err }, "ANALYZE failed"));
      }, 10 * 60_000).unref()
    : undefined;
  const pruner = new ChangeLogPruner(db, config.changeLog, (err) => logger.warn({ err }, "change log not pruned"));
  const deliverer = new WebhookDeliverer(db, config.webhooks, (err) =>
    logger.warn({ err }, "webhook events not delivered"),
  );
  const keys = await loadSigningKeys(db, config.signingKey);
  // the app is made once the port is known: the OAuth server's issuer defaults to this address
  let app: ReturnType<typeof createApp> | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      {
        fetch: (req, env) => app!.fetch(req, env),
        hostname: config.host,
        port: config.port,
        serverOptions: httpServerOptions(config.http),
      },
      () => resolve(s),
    );
  });
  const draining = drainable(server as Server);
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  const oauth = config.oauthServer.enabled ?? oauthServer ?? false;
  const rateLimits = new RateLimits(db, config.rateLimits, (err) => logger.warn({ err }, "rate counts not flushed"));
  const changeStreams = new ChangeStreams(db, config.changeStream, (err) =>
    logger.warn({ err }, "change log not read"),
  );
  const mcpHosts = mcpHostsFor(config.host, config.oauthServer.publicUrl);
  app = createApp({
    db,
    model,
    keys,
    config,
    logger,
    rateLimits,
    changeStreams,
    ...(oauth && { oauthServer: { publicUrl: config.oauthServer.publicUrl ?? url } }),
    ...(mcpHosts && { mcpAllowedHosts: mcpHosts }),
    ...((config.webApp.enabled ?? webApp ?? false) && { webApp: webAppFiles() }),
  });
  logger.info({ url, database: describeDatabase(dbOptions), oauthServer: oauth }, "listening");
  if (demo) {
    const signIns = demo.signIns.map((s) => `  tenant ${s.tenant}: ${s.username} / ${s.password}`);
    console.log(
      `\nbizdata host on ${url} (${describeDatabase(dbOptions)})\nsign in with POST ${url}/api/auth/signin:\n${signIns.join("\n")}\n`,
    );
  }
  return {
    url,
    app,
    db,
    logger,
    /** stops accepting, lets requests in flight finish for up to `graceMs`, then closes the pool */
    async close(graceMs = config.shutdownGrace) {
      clearInterval(analyze);
      const drained = draining.drain(graceMs);
      // after the server stopped accepting: a stream's client reconnects to another host, not this one
      await changeStreams.close();
      const { cut } = await drained;
      if (cut) logger.warn({ graceMs }, "requests still in flight after the grace period were cut");
      rateLimits.close();
      await rateLimits.flush();
      await pruner.close();
      await deliverer.close();
      await db.close();
      logger.info("stopped");
      await flushed(logger);
    },
  };
}
