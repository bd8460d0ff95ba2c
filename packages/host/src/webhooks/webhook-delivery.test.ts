/**
 * Webhook delivery as a receiver sees it, through the host's API and real HTTP to receivers on
 * this machine: every event accepted once, signed, in log order per subscription, retried under
 * its id until a 2xx, dead-lettered after the last attempt and sent again on request; two hosts on
 * one database never sending one event at once; only the subscription's tenant, entity sets and
 * kinds. Deliverers run with webhookTestSettings (short waits, 4 attempts).
 */
import { type Database, inTenant, openDatabase, readChanges } from "@bizdata/core";
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase } from "@bizdata/test-kit/database";
import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import {
  type Received,
  type Receiver,
  startReceiver,
  waitFor,
  webhookTestSettings,
} from "@bizdata/test-kit/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { WebhookDeliverer } from "./webhook-deliverer.js";

const json = async (res: Response) => (await res.json()) as any;

interface Event {
  readonly type: string;
  readonly timestamp: string;
  readonly data: {
    readonly entity: string;
    readonly key: string;
    readonly kind: string;
    readonly owner: string | null;
    readonly properties: string[] | null;
    readonly values: Record<string, unknown> | null;
    readonly actor: string | null;
    readonly requestId: string | null;
  };
}

const eventOf = (r: Received) => JSON.parse(r.body) as Event;
const said = (received: readonly Received[]) => received.map((r) => `${eventOf(r).type} ${eventOf(r).data.key}`);

// what each test started, stopped after it whatever happened
const receivers: Receiver[] = [];
const deliverers: WebhookDeliverer[] = [];
const databases: Database[] = [];
const failures: unknown[] = [];
const subscriptions: { admin: Caller; id: string }[] = [];

afterEach(async () => {
  await Promise.all(deliverers.splice(0).map((d) => d.close()));
  await Promise.all(subscriptions.splice(0).map(({ admin, id }) => admin.request("DELETE", `/api/$webhooks/${id}`)));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(databases.splice(0).map((db) => db.close()));
  expect(failures.splice(0)).toEqual([]);
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** a host's deliverer over `db` (the test database by default) */
async function deliverer(db?: Database): Promise<WebhookDeliverer> {
  const d = new WebhookDeliverer(db ?? (await testDatabase()), webhookTestSettings, (err) => failures.push(err));
  deliverers.push(d);
  return d;
}

async function subscribe(admin: Caller, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await admin.request("POST", "/api/$webhooks", body);
  expect(res.status, await res.clone().text()).toBe(201);
  const created = await json(res);
  subscriptions.push({ admin, id: created.id });
  return created;
}

async function created(who: Caller, path: string, body: unknown): Promise<string> {
  const res = await who.request("POST", path, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json(res)).Guid;
}

async function deliveries(admin: Caller, id: string, state?: string): Promise<any[]> {
  const res = await admin.request("GET", `/api/$webhooks/${id}/deliveries${state ? `?state=${state}` : ""}`);
  expect(res.status).toBe(200);
  return (await json(res)).value;
}

/** whether `r` carries a valid signature for `secret` (Standard Webhooks' own library checks it) */
function verified(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe("webhook delivery", () => {
  it("retries a receiver that fails three times under the same id, and has every event accepted once, signed", async () => {
    const { admin } = await signedInTenant("wh");
    const hook = await receiver((_, n) => (n <= 3 ? 500 : 204));
    const { id, secret } = await subscribe(admin, { url: hook.url, entities: ["Product"] });
    await deliverer();
    const guid = await created(admin, "/api/Product", { SKU: "WH-1", Cost: 12.5 });
    expect((await admin.request("PATCH", `/api/Product(${guid})`, { Cost: 13 })).status).toBe(200);
    expect((await admin.request("DELETE", `/api/Product(${guid})`)).status).toBe(204);
    await waitFor("three events accepted", () => hook.accepted().length === 3);
    expect(said(hook.accepted())).toEqual([
      `Product.created ${guid}`,
      `Product.updated ${guid}`,
      `Product.deleted ${guid}`,
    ]);
    // each event: three failed attempts and an accepted one, all under one id with one body
    const ids = hook.accepted().map((r) => r.id);
    expect(new Set(ids).size).toBe(3);
    for (const eventId of ids) {
      const attempts = hook.received.filter((r) => r.id === eventId);
      expect(attempts.map((r) => r.status)).toEqual([500, 500, 500, 204]);
      expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
      for (const attempt of attempts) expect(verified(secret, attempt)).toBe(true);
    }
    expect(verified(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, hook.accepted()[0]!)).toBe(false);
    const [create, update] = hook.accepted().map(eventOf);
    expect(create!.data).toMatchObject({ entity: "Product", key: guid, kind: "create", actor: "admin", owner: null });
    expect(update!.data.properties).toEqual(["Cost"]);
    // the receiver's answer is recorded once it is back: then nothing is left to send
    await waitFor("the last answer recorded", async () => (await deliveries(admin, id)).length === 0);
  });

  it("has two hosts on one database never send one event at once, each event accepted once, in log order", async () => {
    const { admin } = await signedInTenant("wh");
    const hook = await receiver(async () => {
      // long enough in flight that a second send of the same event would meet it
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 204;
    });
    const subscribed = await Promise.all(
      [0, 1, 2, 3].map((i) => subscribe(admin, { url: `${hook.url}?s=${i}`, entities: ["Product"] })),
    );
    const url = process.env.DATABASE_URL;
    const other = url ? await openDatabase({ url }) : await testDatabase();
    if (url) databases.push(other);
    await Promise.all([deliverer(), deliverer(other)]);
    // 30 writes at once: their transactions commit in another order than they began
    await Promise.all(Array.from({ length: 30 }, (_, i) => created(admin, "/api/Product", { SKU: `TWO-${i}` })));
    await waitFor("every event accepted", () => hook.accepted().length === 4 * 30);
    expect(hook.overlaps).toEqual([]);
    expect(hook.received).toHaveLength(4 * 30);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(4 * 30);
    const db = await testDatabase();
    await changesSettled(db);
    const { rows } = await inTenant(db, admin.tenantId, (tx) =>
      readChanges(tx, admin.tenantId, { entities: ["Product"], from: "0", limit: 1000 }),
    );
    for (const [i] of subscribed.entries())
      expect(hook.received.filter((r) => r.path.endsWith(`s=${i}`)).map((r) => eventOf(r).data.key)).toEqual(
        rows.map((row) => row.key),
      );
  });

  it("dead-letters an event after the last attempt, and sends it again, under its id, when asked", async () => {
    const { admin } = await signedInTenant("wh");
    let up = false;
    const hook = await receiver(() => (up ? 204 : 500));
    // the discard port, where nothing listens here: every attempt is refused
    const gone = { url: "http://127.0.0.1:9/hook" };
    const failing = await subscribe(admin, { url: hook.url, entities: ["Product"], kinds: ["create"] });
    const refused = await subscribe(admin, { url: gone.url, entities: ["Product"], kinds: ["create"] });
    await deliverer();
    const first = await created(admin, "/api/Product", { SKU: "DL-1" });
    const second = await created(admin, "/api/Product", { SKU: "DL-2" });
    await waitFor("both dead-lettered", async () => (await deliveries(admin, failing.id, "dead")).length === 2);
    const dead = await deliveries(admin, failing.id, "dead");
    expect(dead.map((d) => d.event.data.key)).toEqual([second, first]);
    expect(dead[0]).toMatchObject({
      type: "Product.created",
      state: "dead",
      attempts: webhookTestSettings.maxAttempts,
      lastStatus: 500,
      lastError: "answered 500",
      nextAttemptAt: null,
    });
    for (const d of dead)
      expect(hook.received.filter((r) => r.id === d.id)).toHaveLength(webhookTestSettings.maxAttempts);
    await waitFor(
      "both refused ones dead-lettered",
      async () => (await deliveries(admin, refused.id, "dead")).length === 2,
    );
    const [refusedOne] = await deliveries(admin, refused.id);
    expect(refusedOne).toMatchObject({ state: "dead", lastStatus: null });
    expect(refusedOne.lastError).toMatch(/ECONNREFUSED/);

    up = true;
    const again = await admin.request("POST", `/api/$webhooks/${failing.id}/deliveries/${dead[1].id}/redeliver`);
    expect(again.status).toBe(202);
    expect(await json(again)).toMatchObject({ id: dead[1].id, state: "pending", attempts: 0 });
    await waitFor("the first accepted", () => hook.accepted().length === 1);
    const [accepted] = hook.accepted();
    expect(accepted!.id).toBe(dead[1].id);
    expect(accepted!.body).toBe(hook.received.find((r) => r.id === dead[1].id)!.body);
    // delivered, once the answer is recorded: no longer among its deliveries
    await waitFor("the answer recorded", async () => (await deliveries(admin, failing.id)).length === 1);
    expect(
      (await admin.request("POST", `/api/$webhooks/${failing.id}/deliveries/${dead[1].id}/redeliver`)).status,
    ).toBe(404);
    expect((await deliveries(admin, failing.id)).map((d) => d.id)).toEqual([dead[0].id]);

    // the endpoint moved: every dead-lettered event again, in log order
    expect((await admin.request("PATCH", `/api/$webhooks/${refused.id}`, { url: hook.url })).status).toBe(200);
    const all = await admin.request("POST", `/api/$webhooks/${refused.id}/redeliver`);
    expect(all.status).toBe(202);
    expect(await json(all)).toEqual({ redelivered: 2 });
    await waitFor("the moved ones accepted", () => hook.accepted().length === 3);
    expect(
      hook
        .accepted()
        .slice(1)
        .map((r) => eventOf(r).data.key),
    ).toEqual([first, second]);
    expect(await json(await admin.request("POST", `/api/$webhooks/${refused.id}/redeliver`))).toEqual({
      redelivered: 0,
    });
  });

  it("counts an attempt without an answer within the timeout as failed, and tries it again", async () => {
    const { admin } = await signedInTenant("wh");
    const hook = await receiver(async (_, n) => {
      if (n > 1) return 204;
      await new Promise((resolve) => setTimeout(resolve, webhookTestSettings.timeoutMs + 500));
      return 504;
    });
    await subscribe(admin, { url: hook.url, entities: ["Product"] });
    await deliverer();
    await created(admin, "/api/Product", { SKU: "TO-1" });
    await waitFor("both attempts answered", () => hook.received.length === 2);
    expect(hook.accepted()).toHaveLength(1);
    expect(new Set(hook.received.map((r) => r.id)).size).toBe(1);
  });

  it("lets an attempt in flight end when the host stops, and does not queue a pending delivery again", async () => {
    const { admin } = await signedInTenant("wh");
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const hook = await receiver(async () => {
      await answered;
      return 204;
    });
    const { id } = await subscribe(admin, { url: hook.url, entities: ["Product"] });
    const host = await deliverer();
    await created(admin, "/api/Product", { SKU: "STOP-1" });
    await waitFor("an attempt in flight", () => hook.arrived() === 1);
    const [pending] = await deliveries(admin, id);
    expect(pending).toMatchObject({ state: "pending", attempts: 0 });
    const again = await admin.request("POST", `/api/$webhooks/${id}/deliveries/${pending.id}/redeliver`);
    expect(again.status).toBe(400);
    expect((await json(again)).error.code).toBe("DeliveryPending");
    const stopped = host.close();
    answer();
    await stopped;
    expect(hook.accepted()).toHaveLength(1);
    expect(await deliveries(admin, id)).toEqual([]);
  });

  it("sends a tenant's webhooks its own changes only", async () => {
    const [a, b] = await Promise.all([signedInTenant("wh"), signedInTenant("wh")]);
    const [hookA, hookB] = await Promise.all([receiver(), receiver()]);
    await subscribe(a.admin, { url: hookA.url, entities: ["Product", "Customer"] });
    await subscribe(b.admin, { url: hookB.url, entities: ["Product", "Customer"] });
    await deliverer();
    const theirs = await created(b.admin, "/api/Product", { SKU: "B-1" });
    await created(b.admin, "/api/Customer", { Id: "B-C" });
    // a's change comes after b's in the log: had a's webhook seen b's, they would have come first
    const mine = await created(a.admin, "/api/Product", { SKU: "A-1" });
    await waitFor("each tenant's events", () => hookA.accepted().length >= 1 && hookB.accepted().length === 2);
    expect(said(hookA.received)).toEqual([`Product.created ${mine}`]);
    expect(said(hookB.received)[0]).toBe(`Product.created ${theirs}`);
  });

  it("sends only the entity sets and kinds a subscription names, and a disabled one's once enabled", async () => {
    const { admin } = await signedInTenant("wh");
    const [products, deletes, paused] = await Promise.all([receiver(), receiver(), receiver()]);
    await subscribe(admin, { url: products.url, entities: ["Product"], kinds: ["create", "update"] });
    await subscribe(admin, { url: deletes.url, entities: ["Customer"], kinds: ["delete"] });
    const later = await subscribe(admin, { url: paused.url, entities: ["Customer"], enabled: false });
    await deliverer();
    const p1 = await created(admin, "/api/Product", { SKU: "F-1" });
    await admin.request("PATCH", `/api/Product(${p1})`, { Cost: 2 });
    const c1 = await created(admin, "/api/Customer", { Id: "F-C" });
    await admin.request("DELETE", `/api/Product(${p1})`);
    await admin.request("DELETE", `/api/Customer(${c1})`);
    const p2 = await created(admin, "/api/Product", { SKU: "F-2" });
    // each last event is the last change of its sets: any other they took would have come before it
    await waitFor("the last events", () => products.accepted().length >= 3 && deletes.accepted().length >= 1);
    expect(said(products.received)).toEqual([
      `Product.created ${p1}`,
      `Product.updated ${p1}`,
      `Product.created ${p2}`,
    ]);
    expect(said(deletes.received)).toEqual([`Customer.deleted ${c1}`]);
    expect(paused.received).toEqual([]);
    expect(await deliveries(admin, later.id)).toEqual([]);
    expect((await admin.request("PATCH", `/api/$webhooks/${later.id}`, { enabled: true })).status).toBe(200);
    await waitFor("the paused one's events", () => paused.accepted().length === 2);
    expect(said(paused.received)).toEqual([`Customer.created ${c1}`, `Customer.deleted ${c1}`]);
  });

  it("passes over pages of changes of other kinds, and sends an owned collection's items with their owner", async () => {
    const { admin } = await signedInTenant("wh");
    const hook = await receiver();
    await subscribe(admin, { url: hook.url, entities: ["SalesOrder", "SalesOrderDetail"], kinds: ["delete"] });
    await deliverer();
    await created(admin, "/api/Product", { SKU: "PG-1", Price: 1 });
    await created(admin, "/api/Customer", { Id: "PG-C", CreditLimit: 1_000_000 });
    // more creates than a page of the log, then as many deletes
    const lines = 150;
    const order = await created(admin, "/api/SalesOrder", {
      DocNumber: "PG-SO",
      SellToCustomer: "PG-C",
      Details: Array.from({ length: lines }, () => ({ Product: "PG-1", Quantity: 1 })),
    });
    expect((await admin.request("DELETE", `/api/SalesOrder(${order})`)).status).toBe(204);
    await waitFor("every delete", () => hook.accepted().length === lines + 1);
    const events = hook.received.map(eventOf);
    expect(events.every((e) => e.data.kind === "delete")).toBe(true);
    expect(events.filter((e) => e.type === "SalesOrder.deleted").map((e) => e.data.key)).toEqual([order]);
    const items = events.filter((e) => e.type === "SalesOrderDetail.deleted");
    expect(items).toHaveLength(lines);
    expect(new Set(items.map((e) => e.data.owner))).toEqual(new Set([order]));
  });
});
