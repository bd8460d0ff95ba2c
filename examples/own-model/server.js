// server.js: the model served by your own Node server, on an in-memory PGlite
import { openDatabase } from "@bizdata/core";
import { createApp, createTenant, loadConfig, loadSigningKeys, migrateService, setUser } from "@bizdata/host";
import { serve } from "@hono/node-server";
import { model } from "./model.js";

const config = loadConfig({ ...process.env, DATABASE_URL: "memory://" }); // HOST, PORT, limits, …
const db = await openDatabase({ url: config.databaseUrl });
await migrateService(db, model); // the model's tables, the workflow and sign-in tables
await createTenant(db, "acme", "Acme Ltd");
await setUser(db, "acme", "alice", "s3cret!", ["admin"]);

const app = createApp({ db, model, keys: await loadSigningKeys(db), config });
serve({ fetch: app.fetch, hostname: config.host, port: config.port }, ({ port }) =>
  console.log(`listening on http://${config.host}:${port}`),
);
