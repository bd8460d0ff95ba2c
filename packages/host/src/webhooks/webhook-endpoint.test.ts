/**
 * The pieces of a delivery attempt on their own: which addresses count as public, an attempt
 * refused before it connects to this machine (by address or by a name that resolves to it), what
 * an attempt makes of answers, the backoff's bounds, and signatures a Standard Webhooks library
 * accepts.
 */
import { startReceiver } from "@bizdata/test-kit/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { retryDelay } from "./retry-backoff.js";
import { isPublicAddress } from "./webhook-endpoint.js";
import { postEvent } from "./webhook-post.js";
import { newWebhookSecret, signatureHeaders } from "./webhook-signature.js";

describe("webhook endpoints", () => {
  it.each([
    ["93.184.215.14", true],
    ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", true],
    ["8.8.8.8", true],
    ["127.0.0.1", false],
    ["127.8.9.10", false],
    ["::1", false],
    ["::", false],
    ["0.0.0.0", false],
    ["10.0.0.1", false],
    ["172.16.5.4", false],
    ["172.32.0.1", true],
    ["192.168.0.10", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:a00:1", false],
    ["::ffff:808:808", true],
    ["224.0.0.1", false],
  ])("counts %s as public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it("refuses to send to this machine, by address or by name, unless insecure endpoints are allowed", async () => {
    const hook = await startReceiver();
    try {
      const { port } = new URL(hook.url);
      const strict = { timeoutMs: 2000, allowInsecure: false };
      for (const url of [`http://127.0.0.1:${port}/hook`, `http://localhost:${port}/hook`, `http://[::1]:${port}/`]) {
        const outcome = await postEvent(url, {}, "{}", strict);
        expect(outcome.ok, url).toBe(false);
        expect(!outcome.ok && outcome.error, url).toMatch(/not a public address/);
      }
      expect(hook.arrived()).toBe(0);
      expect(await postEvent(hook.url, {}, "{}", { ...strict, allowInsecure: true })).toEqual({
        ok: true,
        status: 204,
      });
      expect(hook.received[0]!.headers["content-type"]).toBe("application/json");
    } finally {
      await hook.close();
    }
  });

  it("takes a 2xx as delivered, and any other answer, a redirect too, as failed with its status", async () => {
    const statuses = [200, 202, 301, 404, 410, 503];
    const hook = await startReceiver((headers) => Number(headers["x-answer"]));
    try {
      const outcomes = [];
      for (const status of statuses)
        outcomes.push(
          await postEvent(hook.url, { "x-answer": String(status) }, "{}", { timeoutMs: 2000, allowInsecure: true }),
        );
      expect(outcomes).toEqual([
        { ok: true, status: 200 },
        { ok: true, status: 202 },
        { ok: false, status: 301, error: "answered 301" },
        { ok: false, status: 404, error: "answered 404" },
        { ok: false, status: 410, error: "answered 410" },
        { ok: false, status: 503, error: "answered 503" },
      ]);
    } finally {
      await hook.close();
    }
  });

  it("waits exponentially longer after each failure, between half and all of the step, never past the cap", () => {
    const settings = { baseMs: 1000, maxMs: 60_000 };
    expect([1, 2, 3, 4].map((n) => retryDelay(n, settings, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(n, settings, () => 0.999_999))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(20, settings, () => 0.999_999)).toBe(60_000);
    expect(retryDelay(2000, settings, () => 0)).toBe(30_000);
  });

  it("signs so that a Standard Webhooks library verifies, and only with the right secret and body", () => {
    const secret = newWebhookSecret();
    const body = '{"type":"Product.created","timestamp":"2026-12-03T14:50:46.626+00:00","data":{"Cost":12.3400}}';
    const headers = signatureHeaders(
      secret,
      "a8f1c3e2-5b7d-4e1a-9c3f-2d6b8e0a1f47",
      Math.floor(Date.now() / 1000),
      body,
    );
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ data: { Cost: 12.34 } });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace("12.3400", "12.3401"), headers)).toThrow();
  });
});
