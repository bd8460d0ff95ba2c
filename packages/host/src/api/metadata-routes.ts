/**
 * The service describing itself (issue 13): the service document at `GET /api/` and the CSDL
 * document at `GET /api/$metadata`, both generated from the model and shaped by the caller's
 * tenant — a method that would answer the tenant 403 is not offered. Like the rest of `/api`
 * they need a bearer token: the document is the tenant's, and a tool that reads data can send
 * the token it reads with.
 */
import type { Database, Model } from "@bizdata/core";
import {
  inRequestTransaction,
  metadataDocument,
  metadataFormat,
  metadataVersion,
  serviceDocumentText,
  tenantInfo,
} from "@bizdata/odata";
import { type Context, Hono } from "hono";
import type { AuthVariables } from "../auth/authenticate.js";

type Env = { Variables: AuthVariables };

const CONTENT_TYPES = { xml: "application/xml", json: "application/json" } as const;

/** a query option by its name with or without `$`, any case (OData 4.01 §11.2.1) */
const option = (url: URL, name: string) =>
  [...url.searchParams].find(([key]) => key.replace(/^\$/, "").toLowerCase() === name)?.[1];

/** the features the tenant has: what shapes its `$metadata` (and its MCP tools) */
export const tenantFeaturesOf = async (db: Database, tenantId: string): Promise<ReadonlySet<string>> =>
  // at most one statement (none when cached): one round trip
  (await inRequestTransaction(db, tenantId, (tx) => tenantInfo(tx, tenantId), { readOnly: true, oneStatement: true }))
    .features;

/** the routes relative to the service root: mount them at the base path */
export function metadataRoutes(db: Database, model: Model, basePath: string) {
  const features = (c: Context<Env>) => tenantFeaturesOf(db, c.get("principal").tenantId);
  const serviceDocument = async (c: Context<Env>) => {
    const body = serviceDocumentText(model, { features: await features(c), version: "4.0" });
    return c.body(body, 200, { "Content-Type": CONTENT_TYPES.json });
  };
  const metadata = async (c: Context<Env>) => {
    const url = new URL(c.req.url);
    const format = metadataFormat(option(url, "format"), c.req.header("accept"));
    const version = metadataVersion(c.req.header("odata-maxversion"));
    const body = metadataDocument(model, format, { features: await features(c), version });
    return c.body(body, 200, { "Content-Type": CONTENT_TYPES[format], "OData-Version": version });
  };
  return (
    new Hono<Env>()
      // the URLs in the service document are relative to the root, which ends with its slash
      .get(basePath, (c) => c.redirect(`${basePath}/${new URL(c.req.url).search}`, 308))
      .get(`${basePath}/`, serviceDocument)
      // a client may percent-encode the `$`; the path means the same (RFC 3986 §2.1)
      .get(`${basePath}/$metadata`, metadata)
      .get(`${basePath}/%24metadata`, metadata)
  );
}
