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
  type Receiver,
  type Received,
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
    expect(await deliveries(admin, id)).toEqual([]);
  });
});
