/** The guide's sync client (docs/guide/change-tracking.md) against the host, as a client runs it. */
import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase } from "@bizdata/test-kit/database";
import { signedInTenant } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { type Get, type Mirror, sync } from "./delta-sync.js";

describe("the delta sync example", () => {
  it("copies the products, then follows creates, updates and deletes through delta links", async () => {
    const { admin } = await signedInTenant("sync");
    const db = await testDatabase();
    // what the test wrote in the log's reach before each read (another worker may hold it back)
    const get: Get = async (url, headers) => {
      await changesSettled(db);
      return admin.request("GET", url, undefined, headers);
    };
    const post = async (body: unknown) =>
      ((await (await admin.request("POST", "/api/Product", body)).json()) as { Guid: string }).Guid;
    const first = await post({ SKU: "S-1", Cost: 1 });
    const second = await post({ SKU: "S-2", Cost: 2 });
    const mirror: Mirror = { records: new Map(), deltaLink: undefined };
    expect(await sync(get, "/api/Product?$select=SKU,Cost", mirror)).toEqual({ put: 2, dropped: 0 });
    expect(new URL(mirror.deltaLink!, "http://x").searchParams.has("$deltatoken")).toBe(true);
    await admin.request("PATCH", `/api/Product(${first})`, { Cost: 10 });
    await admin.request("DELETE", `/api/Product(${second})`);
    const third = await post({ SKU: "S-3" });
    expect(await sync(get, "/api/Product?$select=SKU,Cost", mirror)).toEqual({ put: 2, dropped: 1 });
    const costs = Object.fromEntries([...mirror.records.values()].map((p) => [p.SKU, p.Cost]));
    expect(costs).toEqual({ "S-1": 10, "S-3": null });
    expect([...mirror.records.keys()].sort()).toEqual([first, third].sort());
    expect(await sync(get, "/api/Product?$select=SKU,Cost", mirror)).toEqual({ put: 0, dropped: 0 });
  });
});
