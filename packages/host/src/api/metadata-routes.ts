/**
 * The service describing itself (issue 13): the service document at `GET /api/` and the CSDL
 * document at `GET /api/$metadata`, both generated from the model and shaped by the caller's
 * tenant — a method that would answer the tenant 403 is not offered. Like the rest of `/api`
 * they need a bearer token: the document is the tenant's, and a tool that reads data can send
 * the token it reads with.
 */
import { type Database, inUnit, type Model } from "@bizdata/core";
import { describeService, formatOptionOf, tenantInfo } from "@bizdata/odata";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";

type Env = { Variables: AuthVariables };

/** the features the tenant has: what shapes its `$metadata` (and its MCP tools) */
export const tenantFeaturesOf = async (db: Database, tenantId: string): Promise<ReadonlySet<string>> =>
  // at most one statement (none when cached): one round trip
  (await inUnit(db, tenantId, undefined, (tx) => tenantInfo(tx, tenantId), { readOnly: true, oneStatement: true }))
    .features;

/** the routes relative to the service root: mount them at the base path */
export function metadataRoutes(db: Database, model: Model, basePath: string) {
  const describe = (what: "service" | "metadata") => async (c: Context<Env>) => {
    const result = describeService(model, what, {
      format: formatOptionOf(new URL(c.req.url).searchParams),
      accept: c.req.header("accept"),
      maxVersion: c.req.header("odata-maxversion"),
      features: await tenantFeaturesOf(db, c.get("principal").tenantId),
      changeTracking: db.store.changeLog,
    });
    return c.body(result.body ?? "", 200, result.headers);
  };
  const metadata = describe("metadata");
  return (
    new Hono<Env>()
      // the URLs in the service document are relative to the root, which ends with its slash
      .get(basePath, (c) => c.redirect(`${basePath}/${new URL(c.req.url).search}`, 308))
      .get(`${basePath}/`, describe("service"))
      // a client may percent-encode the `$`; the path means the same (RFC 3986 §2.1)
      .get(`${basePath}/$metadata`, metadata)
      .get(`${basePath}/%24metadata`, metadata)
  );
}
