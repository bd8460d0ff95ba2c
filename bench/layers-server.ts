/**
 * Child-process entry of layers.ts: one HTTP layer (LAYER) over a database that replays what the
 * real one answered (replay-database.ts), sent over IPC with the recorded answer of the request:
 * `app` the host's whole app (createApp: request ids, metrics, OData-Version, authentication,
 * the workflow check, routing), `service` a Hono route handing the request to the OData service,
 * `hono` a Hono route answering the recorded answer (reading a POST's body, as every server must).
 */

import { openDatabase, type Row } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { createApp, loadConfig, loadSigningKeys } from "@bizdata/host";
import { createODataService, type ODataResult, odataRequestOf } from "@bizdata/odata";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { replaying } from "./replay-database.js";

export type HttpLayer = "app" | "service" | "hono";

export interface LayerSetup {
  readonly answers: readonly (readonly [string, readonly Row[]])[];
  readonly answer: ODataResult;
  readonly tenantId: string;
}

const layer = process.env.LAYER as HttpLayer;
const setup = await new Promise<LayerSetup>((resolve) => process.once("message", resolve));
// the real database only lends its record store (statement builders) and the signing keys
const real = await openDatabase({ url: process.env.DATABASE_URL!, max: 1 });
const db = replaying(real.store, new Map(setup.answers));
// the environment says LOG_LEVEL and METRICS (layers.ts runs the app with and without each); rate
// limits that one token never reaches, as the bench's host has them (host-server.ts)
const config = loadConfig({ RATE_LIMIT_PER_TOKEN: "10000000", RATE_LIMIT_PER_ADDRESS: "10000000", ...process.env });
const send = (c: Context, result: ODataResult) =>
  result.body === undefined
    ? c.body(null, result.status as 204, result.headers)
    : c.body(result.body, result.status as 200, result.headers);

async function served(): Promise<{ fetch: (request: Request) => Response | Promise<Response> }> {
  switch (layer) {
    case "app":
      return createApp({ db, model: sampleModel, keys: await loadSigningKeys(real), config });
    case "service": {
      const service = createODataService({ db, model: sampleModel });
      const handle = async (c: Context) =>
        send(
          c,
          await service.handle(
            odataRequestOf(c.req.raw, { basePath: "/api", tenantId: setup.tenantId, bodyLimits: config.bodyLimits }),
          ),
        );
      return new Hono().get("/api/*", handle).post("/api/*", handle);
    }
    case "hono":
      return new Hono()
        .get("/api/*", (c) => send(c, setup.answer))
        .post("/api/*", async (c) => {
          await c.req.json();
          return send(c, setup.answer);
        });
  }
}

const server = serve({ fetch: (await served()).fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send?.({ url: `http://127.0.0.1:${info.port}` });
});
process.on("disconnect", () => server.close(() => void real.close().then(() => process.exit(0))));
