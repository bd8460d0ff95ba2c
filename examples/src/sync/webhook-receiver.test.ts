/** The guide's webhook receiver (docs/guide/change-tracking.md) taking the host's events, and refusing forgeries. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebhookDeliverer } from "@bizdata/host";
import { testDatabase } from "@bizdata/test-kit/database";
import { signedInTenant } from "@bizdata/test-kit/host-app";
import { waitFor, webhookTestSettings } from "@bizdata/test-kit/webhook-receiver";
import { describe, expect, it } from "vitest";
import { type ChangeEvent, verifyWebhook, webhookReceiver } from "./webhook-receiver.js";

describe("the webhook receiver example", () => {
  it("takes each change once, verified, and refuses what the secret did not sign", async () => {
    const { admin } = await signedInTenant("hook");
    const events: ChangeEvent[] = [];
    // the receiver's own secret is only known once registered: the handler is set then
    let handler: ReturnType<typeof webhookReceiver> = (_, res) => res.writeHead(503).end();
    const server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const deliverer = new WebhookDeliverer(await testDatabase(), webhookTestSettings);
    let id: string | undefined;
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const res = await admin.request("POST", "/api/$webhooks", { url, entities: ["Product"] });
      const registered = (await res.json()) as { id: string; secret: string };
      id = registered.id;
      handler = webhookReceiver(registered.secret, (event) => {
        events.push(event);
      });
      const guid = ((await (await admin.request("POST", "/api/Product", { SKU: "HOOK-1" })).json()) as { Guid: string })
        .Guid;
      await admin.request("PATCH", `/api/Product(${guid})`, { Cost: 3 });
      await waitFor("both events", () => events.length === 2);
      expect(events.map((e) => [e.type, e.data.key])).toEqual([
        ["Product.created", guid],
        ["Product.updated", guid],
      ]);
      expect(events[1]!.data.properties).toEqual(["Cost"]);

      // a forgery: another secret, an old timestamp, a changed body
      const now = Math.floor(Date.now() / 1000);
      const forged = await fetch(url, {
        method: "POST",
        body: "{}",
        headers: { "webhook-id": "x", "webhook-timestamp": String(now), "webhook-signature": "v1,AAAA" },
      });
      expect(forged.status).toBe(401);
      const headers = { "webhook-id": "x", "webhook-timestamp": String(now - 600), "webhook-signature": "v1,AAAA" };
      expect(verifyWebhook(registered.secret, headers, "{}", now)).toBe(false);
    } finally {
      await deliverer.close();
      if (id !== undefined) await admin.request("DELETE", `/api/$webhooks/${id}`);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
