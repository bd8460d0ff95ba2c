/**
 * The reference host over real HTTP for the client tests: the test app (packages/test-kit/src/host-app.ts) served
 * by @hono/node-server on a free loopback port, with a tenant of its own that has every sample
 * feature, an admin signed in, and a small seeded sample data set. Clients from npm are pointed
 * at `serviceUrl` with `authorization` as their only change.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sampleFeatures, sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext } from "@bizdata/host";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { PASSWORD, signIn, testApp } from "@bizdata/test-kit/host-app";
import { serve } from "@hono/node-server";
import { ExchangeLog } from "./exchange-log.js";

/** small enough to seed in a second, large enough for filters and expands to mean something */
export const sampleSizes = { products: 12, customers: 6, orders: 8, linesPerOrder: 2, invoices: 3, journals: 3 };

export interface ReferenceService {
  /** the service root, e.g. http://127.0.0.1:41234/api/ (with the trailing slash OData clients expect) */
  readonly serviceUrl: string;
  readonly tenantId: string;
  /** `Bearer …` of the tenant's admin */
  readonly authorization: string;
  /** every request that reached the service, with its answer */
  readonly exchanges: ExchangeLog;
  /** GET relative to the service root with the admin's token, parsed as JSON */
  getJson(path: string): Promise<any>;
  /** POST a JSON body relative to the service root with the admin's token; anything but 201 throws */
  postJson(path: string, body: unknown): Promise<any>;
  /** `$metadata` as a client fetches it with the admin's token: CSDL XML, Version 4.0 */
  metadataXml(): Promise<string>;
  /** GET relative to the service root with the admin's token: the status alone */
  status(path: string): Promise<number>;
  /**
   * Runs a client's call; when it fails, the error says what the client sent and what the
   * service answered, so a failing test names the request at fault.
   */
  explain<T>(call: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startReferenceService(label: string): Promise<ReferenceService> {
  const app = await testApp();
  const db = await testDatabase();
  const admin = adminContext(db, sampleModel);
  const tenantId = uniqueTenant(label);
  await admin.createTenant(tenantId);
  await admin.setUser(tenantId, "admin", PASSWORD, ["admin"]);
  for (const feature of sampleFeatures) await admin.setFeature(tenantId, feature, true);
  await seedSampleData(admin, tenantId, sampleSizes);
  const authorization = `Bearer ${await signIn(app, tenantId, "admin")}`;

  const exchanges = new ExchangeLog();
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: exchanges.record(app.fetch), hostname: "127.0.0.1", port: 0 }, () => resolve(s as Server));
  });
  const { port } = server.address() as AddressInfo;
  const serviceUrl = `http://127.0.0.1:${port}/api/`;
  const get = (path: string) => fetch(new URL(path, serviceUrl), { headers: { Authorization: authorization } });
  const ok = async (res: Response, what: string) => {
    if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    serviceUrl,
    tenantId,
    authorization,
    exchanges,
    getJson: async (path) => (await ok(await get(path), `GET ${path}`)).json(),
    async postJson(path, body) {
      const res = await fetch(new URL(path, serviceUrl), {
        method: "POST",
        headers: { Authorization: authorization, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    metadataXml: async () => (await ok(await get("$metadata"), "GET $metadata")).text(),
    async status(path) {
      const res = await get(path);
      await res.body?.cancel();
      return res.status;
    },
    async explain(call) {
      const mark = exchanges.mark();
      try {
        return await call();
      } catch (err) {
        // no `cause`: a client's error object carries its whole request configuration, the token included
        throw new Error(`${messageOf(err)}\nexchanges:\n${exchanges.describe(mark)}`);
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** a client library's error, with the messages of its causes (SAP's ErrorWithCause, axios, fetch) */
function messageOf(err: unknown): string {
  const messages: string[] = [];
  for (let e: any = err; e instanceof Error && messages.length < 5; e = e.cause) messages.push(e.message);
  return messages.join(" ← ");
}
