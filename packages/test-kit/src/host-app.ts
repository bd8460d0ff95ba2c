/**
 * The reference host's app over the shared test database, driven through `app.request` (no
 * server). Each call to `signedInTenant` makes a fresh tenant with an admin and a reader, so
 * tests never see each other's data.
 */

import { sampleModel } from "@bizdata/examples";
import { createApp, createTenant, loadConfig, loadSigningKeys, migrateService, setUser } from "@bizdata/host";
import pino from "pino";
import { testDatabase, uniqueTenant } from "./database.js";

export { dataOf } from "./payload-data.js";

type App = ReturnType<typeof createApp>;

let shared: Promise<App> | undefined;

/**
 * Without the per-token rate limit: its flush, a statement a second on the app's database, would
 * land among the statements the tests that count them record (rate-limits.test.ts tests it); a
 * token's grant read once a minute, not every 5 s, for the same reason (token-grants.test.ts
 * reads them on every request). Webhooks may go to the tests' receivers on this machine, as many
 * a tenant as webhook-receiver.ts's deliverers expect.
 */
export const config = loadConfig({
  MAX_PAGE_SIZE: "50",
  MAX_BODY_BYTES: String(64 * 1024),
  LOG_LEVEL: "silent",
  GRANT_CACHE_MS: "60000",
  RATE_LIMIT_PER_TOKEN: "0",
  WEBHOOK_ALLOW_INSECURE: "on",
  WEBHOOKS_PER_TENANT: "25",
});

/** the app, built once per worker */
export function testApp(): Promise<App> {
  shared ??= (async () => {
    const db = await testDatabase();
    await migrateService(db, sampleModel);
    const keys = await loadSigningKeys(db);
    return createApp({ db, model: sampleModel, keys, config });
  })();
  return shared;
}

export interface Caller {
  readonly tenantId: string;
  /** `fetch`-like: path relative to the app, JSON bodies serialized, bearer token attached */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

const PASSWORD = "correct horse battery staple";

/** signs `username` of `tenantId` in (password PASSWORD) and returns the access token */
export async function signIn(app: App, tenantId: string, username: string): Promise<string> {
  const res = await app.request("/api/auth/signin", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: tenantId, Username: username, Password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export function caller(app: App, tenantId: string, token: string | undefined): Caller {
  return {
    tenantId,
    request: async (method, path, body, headers = {}) =>
      app.request(path, {
        method,
        headers: {
          ...(token !== undefined && { Authorization: `Bearer ${token}` }),
          ...(body !== undefined && { "Content-Type": "application/json" }),
          ...headers,
        },
        // a stream goes out chunked, without Content-Length
        ...(body instanceof ReadableStream
          ? { body, duplex: "half" }
          : body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
      } as RequestInit),
  };
}

/** a new tenant with an `admin` and a `reader` user, both signed in */
export async function signedInTenant(label = "t"): Promise<{ admin: Caller; reader: Caller; app: App }> {
  const app = await testApp();
  const db = await testDatabase();
  const tenantId = uniqueTenant(label);
  await createTenant(db, tenantId);
  await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
  await setUser(db, tenantId, "reader", PASSWORD, ["reader"]);
  return {
    app,
    admin: caller(app, tenantId, await signIn(app, tenantId, "admin")),
    reader: caller(app, tenantId, await signIn(app, tenantId, "reader")),
  };
}

/** the env @hono/node-server passes with a request, for `app.request`: a connection from `remoteAddress` */
export const fromPeer = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

export { PASSWORD };

/** a line of an app's JSON log */
export interface LogLine {
  readonly msg: string;
  readonly reqId?: string;
  readonly method?: string;
  readonly path?: string;
}

/**
 * An app of its own over the test database, metrics on, whose log (parsed, in `lines`) only its
 * own requests reach; `options` as createApp takes them (a tenant share to watch, say)
 */
export async function loggedApp(options: Partial<Parameters<typeof createApp>[0]> = {}) {
  const db = await testDatabase();
  const lines: LogLine[] = [];
  const app = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, metrics: { enabled: true, token: undefined } },
    logger: pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) }),
    ...options,
  });
  return { app, lines };
}
