/**
 * `GET /api/$changes` through HTTP (app.request): the changes of the caller's tenant in log order,
 * resumed from Last-Event-ID without a gap or a repeat (also by a new app on the same database, as
 * after a restart), held to the caller's rights, with heartbeats, a bound on what a client leaves
 * unread, and a limit on streams per user. Every wait is for an event or an answer, never a time.
 */
import { sampleModel } from "@bizdata/examples";
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { EventReader } from "@bizdata/test-kit/event-stream";
import { type Caller, caller, config, PASSWORD, signIn } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { type AppOptions, createApp } from "../app.js";
import { defaultRoles } from "../auth/permissions.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import type { ChangeStreamSettings } from "../config.js";
import { migrateService } from "../schema.js";
import { createTenant, setUser } from "../tenants/tenant-admin.js";
import { eventData } from "./change-stream-routes.js";
import { ChangeStreams } from "./change-streams.js";
import { encodePosition } from "./stream-position.js";

const roles = { ...defaultRoles, products: { read: ["Product"] } };
const fast: ChangeStreamSettings = {
  ...config.changeStream,
  pollMs: 20,
  heartbeatMs: 3_600_000,
};

type App = ReturnType<typeof createApp>;

/** an app of its own over the test database, its streams `settings` */
async function streamApp(settings: Partial<ChangeStreamSettings> = {}, options: Partial<AppOptions> = {}) {
  const db = await testDatabase();
  await migrateService(db, sampleModel);
  const streamConfig = { ...fast, ...settings };
  const changeStreams = new ChangeStreams(db, streamConfig);
  const app = createApp({
    db,
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: { ...config, roles, changeStream: streamConfig },
    changeStreams,
    ...options,
  });
  return { app, changeStreams };
}

/** a new tenant on `app` with an `admin`, a `reader` and a `products` user (reads Product only), signed in */
async function tenantOn(app: App) {
  const db = await testDatabase();
  const tenantId = uniqueTenant("cs");
  await createTenant(db, tenantId);
  const who: Record<string, Caller> = {};
  for (const user of ["admin", "reader", "products"]) {
    await setUser(db, tenantId, user, PASSWORD, [user]);
    who[user] = caller(app, tenantId, await signIn(app, tenantId, user));
  }
  return who as { admin: Caller; reader: Caller; products: Caller };
}

/** a stream as `who`, with its first block (the start position) read, so that what is written next is in it */
async function follow(who: Caller, query = "", headers: Record<string, string> = {}) {
  const res = await who.request("GET", `/api/$changes${query}`, undefined, headers);
  if (res.status !== 200) throw new Error(`the stream was refused: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = new EventReader(res);
  if (headers["Last-Event-ID"] === undefined && !query.includes("lastEventId")) {
    const first = await reader.next();
    expect(first?.id).toBeDefined();
  }
  return reader;
}

async function created(who: Caller, path: string, body: unknown): Promise<string> {
  const res = await who.request("POST", path, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { Guid: string }).Guid;
}

const said = (events: { data: Record<string, any> }[]) => events.map((e) => `${e.data.kind} ${e.data.entity}`);

describe("the change stream", () => {
  it("sends each create, update and delete in order, with who made it and in which request", async () => {
    const { app } = await streamApp();
    const { admin } = await tenantOn(app);
    const stream = await follow(admin);
    const guid = await created(admin, "/api/Product", { SKU: "S1", Price: 5 });
    expect(
      (await admin.request("PATCH", `/api/Product(${guid})`, { Price: 6 }, { "X-Request-Id": "p-1" })).status,
    ).toBe(200);
    expect((await admin.request("DELETE", `/api/Product(${guid})`)).status).toBe(204);
    const events = await stream.changes(3);
    expect(said(events)).toEqual(["create Product", "update Product", "delete Product"]);
    expect(events.map((e) => e.data.key)).toEqual([guid, guid, guid]);
    expect(events[1]!.data).toMatchObject({ properties: ["Price"], actor: "admin", requestId: "p-1", owner: null });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    await stream.cancel();
  });

  it("has an order's lines with their owner, and follows only the entity sets asked for", async () => {
    const { app } = await streamApp();
    const { admin } = await tenantOn(app);
    const stream = await follow(admin, "?entities=SalesOrder,SalesOrderDetail");
    await created(admin, "/api/Product", { SKU: "P1", Price: 10 });
    await created(admin, "/api/Customer", { Id: "C1", CreditLimit: 1_000_000 });
    const order = await created(admin, "/api/SalesOrder", {
      DocNumber: "SO-1",
      SellToCustomer: "C1",
      Details: [{ Product: "P1", Quantity: 2 }],
    });
    const events = await stream.changes(2);
    expect(said(events)).toEqual(["create SalesOrder", "create SalesOrderDetail"]);
    expect(events[1]!.data.owner).toBe(order);
    await stream.cancel();
  });

  it("resumes after the Last-Event-ID it is given: the changes made meanwhile, each once", async () => {
    const { app } = await streamApp();
    const { admin } = await tenantOn(app);
    const first = await follow(admin, "?entities=Product");
    const a = await created(admin, "/api/Product", { SKU: "A", Price: 1 });
    const [seen] = await first.changes(1);
    await first.cancel();
    const b = await created(admin, "/api/Product", { SKU: "B", Price: 1 });
    const c = await created(admin, "/api/Product", { SKU: "C", Price: 1 });
    expect(seen!.data.key).toBe(a);
    const again = await follow(admin, "?entities=Product", { "Last-Event-ID": seen!.id });
    const d = await created(admin, "/api/Product", { SKU: "D", Price: 1 });
    expect((await again.changes(3)).map((e) => e.data.key)).toEqual([b, c, d]);
    await again.cancel();
    // the query option does the same; the header wins over it (an EventSource reconnects to the URL it began with)
    const byOption = await follow(admin, `?entities=Product&lastEventId=${encodeURIComponent(seen!.id)}`);
    expect((await byOption.changes(1)).map((e) => e.data.key)).toEqual([b]);
    await byOption.cancel();
  });

  it("resumes on a new app over the same database, as after a restart: every event exactly once", async () => {
    const before = await streamApp();
    const { admin } = await tenantOn(before.app);
    const stream = await follow(admin, "?entities=Product");
    const made = [await created(admin, "/api/Product", { SKU: "R1", Price: 1 })];
    const got = await stream.changes(1);
    made.push(await created(admin, "/api/Product", { SKU: "R2", Price: 1 }));
    got.push(...(await stream.changes(1)));
    // the host shuts down: its streams end cleanly, after what they sent
    await before.changeStreams.close();
    expect(await stream.rest()).toEqual([]);
    made.push(await created(admin, "/api/Product", { SKU: "R3", Price: 1 }));
    made.push(await created(admin, "/api/Product", { SKU: "R4", Price: 1 }));
    const after = await streamApp();
    const resumed = caller(after.app, admin.tenantId, await signIn(after.app, admin.tenantId, "admin"));
    const next = await follow(resumed, "?entities=Product", { "Last-Event-ID": stream.lastId! });
    made.push(await created(resumed, "/api/Product", { SKU: "R5", Price: 1 }));
    got.push(...(await next.changes(3)));
    expect(got.map((e) => e.data.key)).toEqual(made);
    await next.cancel();
  });

  it("never sends another tenant's changes", async () => {
    const { app } = await streamApp();
    const mine = await tenantOn(app);
    const theirs = await tenantOn(app);
    const stream = await follow(mine.admin);
    await created(theirs.admin, "/api/Product", { SKU: "THEIRS", Price: 1 });
    await changesSettled(await testDatabase());
    const own = await created(mine.admin, "/api/Product", { SKU: "MINE", Price: 1 });
    const [event] = await stream.changes(1);
    expect(event!.data.key).toBe(own);
    await stream.cancel();
  });

  it("sends a caller only the entity sets it may read, and who changed what only with the history grant", async () => {
    const { app } = await streamApp();
    const { admin, reader, products } = await tenantOn(app);
    const own = await follow(products);
    const plain = await follow(reader, "?entities=Product");
    await created(admin, "/api/Customer", { Id: "C1", CreditLimit: 1 });
    const product = await created(admin, "/api/Product", { SKU: "P", Price: 1 });
    const [event] = await own.changes(1);
    expect(event!.data).toMatchObject({ entity: "Product", key: product });
    const [read] = await plain.changes(1);
    expect(read!.data).toEqual({
      entity: "Product",
      key: product,
      kind: "create",
      properties: [],
      owner: null,
      at: expect.any(String),
    });
    const refused = await products.request("GET", "/api/$changes?entities=Product,Customer");
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe("Forbidden");
    await own.cancel();
    await plain.cancel();
  });

  it("puts the values an entity logs in its events for a caller who may read its history only", () => {
    const row = {
      xid: "7",
      seq: 1,
      at: "2026-12-04T10:00:00+00:00",
      entity: "Product",
      key: "00000000-0000-4000-8000-000000000001",
      owner: null,
      kind: "update" as const,
      properties: ["Price"],
      data: { Price: 6 },
      actor: "admin",
      requestId: "r-1",
    };
    expect(JSON.parse(eventData(row, true))).toMatchObject({ actor: "admin", requestId: "r-1", values: { Price: 6 } });
    expect(Object.keys(JSON.parse(eventData(row, false)))).toEqual([
      "entity",
      "key",
      "kind",
      "properties",
      "owner",
      "at",
    ]);
  });

  it("refuses what it cannot follow: an unknown entity set, an unknown option, an id it did not write, an expired one", async () => {
    const { app } = await streamApp();
    const { admin } = await tenantOn(app);
    const refusal = async (query: string, headers: Record<string, string> = {}) => {
      const res = await admin.request("GET", `/api/$changes${query}`, undefined, headers);
      return [res.status, ((await res.json()) as any).error] as const;
    };
    expect(await refusal("?entities=Product,Gadget")).toEqual([
      400,
      expect.objectContaining({ code: "UnknownEntitySet", target: "Gadget" }),
    ]);
    expect(await refusal("?since=1")).toEqual([
      400,
      expect.objectContaining({ code: "NotSupported", target: "since" }),
    ]);
    for (const id of ["garbage", "Yy4xLjE", "", "x".repeat(200), encodePosition({ xid: "1", seq: 1, at: 1 }) + "A"]) {
      if (id === "") continue;
      expect(await refusal("", { "Last-Event-ID": id })).toEqual([
        400,
        expect.objectContaining({ code: "InvalidEventId", target: "Last-Event-ID" }),
      ]);
    }
    expect(await refusal("?lastEventId=nope")).toEqual([
      400,
      expect.objectContaining({ code: "InvalidEventId", target: "lastEventId" }),
    ]);
    const old = encodePosition({ xid: "1", seq: 1, at: Date.now() - (config.changeLog.retention + 60) * 1000 });
    expect(await refusal("", { "Last-Event-ID": old })).toEqual([
      410,
      expect.objectContaining({ code: "EventIdExpired" }),
    ]);
    expect((await app.request("/api/$changes")).status).toBe(401);
    // a host whose writes log nothing has nothing to stream
    const off = await streamApp(
      {},
      { config: { ...config, roles, changeLog: { ...config.changeLog, enabled: false } } },
    );
    const res = await caller(off.app, admin.tenantId, await signIn(off.app, admin.tenantId, "admin")).request(
      "GET",
      "/api/$changes",
    );
    expect([res.status, ((await res.json()) as any).error.code]).toEqual([404, "NotFound"]);
  });

  it("sends heartbeats while nothing changes", async () => {
    const { app } = await streamApp({ heartbeatMs: 20 });
    const { admin } = await tenantOn(app);
    const stream = await follow(admin);
    const block = await stream.next();
    expect(block?.comments).toEqual(["heartbeat"]);
    await stream.cancel();
  });

  it("closes the stream of a client that leaves too much unread, which then resumes with every change", async () => {
    const { app } = await streamApp({ maxBufferBytes: 4096, perUser: 1 });
    const { admin } = await tenantOn(app);
    const slow = await follow(admin, "?entities=Product");
    // some 30 events of about 400 bytes: more than the 4 KiB the client may leave unread
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) => created(admin, "/api/Product", { SKU: `SLOW-${i}`, Price: i })),
    );
    // its place frees when the slow stream is dropped: till then a second stream of the user's is refused
    for (;;) {
      const probe = await admin.request("GET", "/api/$changes?entities=Product");
      if (probe.status === 200) {
        await probe.body?.cancel();
        break;
      }
      expect(probe.status).toBe(429);
      expect(((await probe.json()) as any).error.code).toBe("TooManyStreams");
      // on PGlite the requests above are promises only: let the feed's timer run between them
      await new Promise((resolve) => setImmediate(resolve));
    }
    const got = (await slow.rest()).filter((b) => b.event === "change");
    expect(got.length).toBeLessThan(made.length);
    const rest = await follow(admin, "?entities=Product", { "Last-Event-ID": slow.lastId! });
    const more = await rest.changes(made.length - got.length);
    expect(new Set([...got.map((b) => JSON.parse(b.data!).key), ...more.map((e) => e.data.key)])).toEqual(
      new Set(made),
    );
    await rest.cancel();
  });

  it("gets each change of 30 writers at once exactly once", async () => {
    const { app } = await streamApp();
    const { admin } = await tenantOn(app);
    const stream = await follow(admin, "?entities=Product");
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) => created(admin, "/api/Product", { SKU: `W${i}`, Price: i })),
    );
    const events = await stream.changes(30);
    expect(events.map((e) => e.data.key).sort()).toEqual([...made].sort());
    // and nothing more: the next event is the next change
    const last = await created(admin, "/api/Product", { SKU: "LAST", Price: 1 });
    expect((await stream.changes(1))[0]!.data.key).toBe(last);
    await stream.cancel();
  });
});
