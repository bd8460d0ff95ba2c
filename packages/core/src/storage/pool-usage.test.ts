import { testDatabase } from "@bizdata/test-kit/database";
import { describe, expect, it } from "vitest";
import { poolUsage } from "./pool-usage.js";

describe("poolUsage", () => {
  it("counts operations as busy up to the pool's size and the rest as waiting, until they settle", async () => {
    const usage = poolUsage(2);
    const release: (() => void)[] = [];
    const held = [1, 2, 3].map(() => usage.track(new Promise<void>((r) => release.push(r))));
    expect(usage.stats()).toEqual({ size: 2, busy: 2, waiting: 1 });
    release[0]!();
    await held[0];
    expect(usage.stats()).toEqual({ size: 2, busy: 2, waiting: 0 });
    const failing = usage.track(Promise.reject(new Error("boom")));
    await expect(failing).rejects.toThrow("boom");
    for (const r of release) r();
    await Promise.all(held);
    expect(usage.stats()).toEqual({ size: 2, busy: 0, waiting: 0 });
  });

  it("is what the driver reports: a transaction holds a connection while it runs", async () => {
    const db = await testDatabase();
    const idle = db.stats();
    expect(idle.size).toBeGreaterThanOrEqual(1);
    const inside = await db.transaction(async () => db.stats());
    expect(inside.busy).toBe(idle.busy + 1);
    expect(db.stats().busy).toBe(idle.busy);
  });
});
