/**
 * Starts the reference host: open the database, migrate, seed the demo set into an empty embedded
 * database (never into PostgreSQL: `pnpm seed` does that on request), then listen.
 */
import { describeDatabase, type Model, migrate, openDatabase } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { serve } from "@hono/node-server";
import pino from "pino";
import { createApp } from "./app.js";
import { loadSigningKeys } from "./auth/signing-keys.js";
import type { HostConfig } from "./config.js";
import { consoleProgress } from "./seed/console-progress.js";
import { demoTenants, demoUsers, isEmpty, seedDemo } from "./seed/demo-tenants.js";

export interface StartOptions {
  readonly model?: Model;
  /** seed the demo tenants into an empty embedded database (default: true for the sample model) */
  readonly seedDemo?: boolean;
}

export async function startHost(config: HostConfig, options: StartOptions = {}) {
  const logger = pino({ level: config.logLevel });
  const model = options.model ?? sampleModel;
  const dbOptions = { url: config.databaseUrl, dataDir: config.dataDir };
  const db = await openDatabase(dbOptions);
  await migrate(db, model);
  const embedded = db.driver === "pglite";
  // the demo set is the sample domain's: another model starts empty
  const demo = embedded && (options.seedDemo ?? model === sampleModel);
  if (demo && (await isEmpty(db))) {
    logger.info("empty embedded database: seeding the demo tenants and sample data");
    await seedDemo(db, model, {}, (tenant) => consoleProgress(`seeding ${tenant}`));
  }
  // PGlite runs no autovacuum: refresh planner statistics now and then, or plans go stale as data grows
  const analyze = embedded
    ? setInterval(() => {
        db.query({ sql: "ANALYZE", params: [] }).catch((err: unknown) => logger.warn({ err }, "ANALYZE failed"));
      }, 10 * 60_000).unref()
    : undefined;
  const keys = await loadSigningKeys(db, config.signingKey);
  const app = createApp({ db, model, keys, config, logger });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info({ url, database: describeDatabase(dbOptions) }, "listening");
  if (demo) {
    const signIns = demoTenants.flatMap((t) => demoUsers.map((u) => `  tenant ${t.id}: ${u.username} / ${u.password}`));
    console.log(
      `\nbizdata host on ${url} (${describeDatabase(dbOptions)})\nsign in with POST ${url}/api/auth/signin:\n${signIns.join("\n")}\n`,
    );
  }
  return {
    url,
    app,
    db,
    async close() {
      clearInterval(analyze);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
