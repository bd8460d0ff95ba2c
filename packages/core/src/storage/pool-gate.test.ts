import { describe, expect, it } from "vitest";
import { PoolGate } from "./pool-gate.js";

/** a promise with its resolve at hand */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("PoolGate", () => {
  it("runs at most `size` operations at once and admits the waiters in order", async () => {
    const gate = new PoolGate(2, 5_000);
    const started: number[] = [];
    const holds = [deferred(), deferred(), deferred(), deferred()];
    const runs = holds.map((hold, i) =>
      gate.run(async () => {
        started.push(i);
        await hold.promise;
        return i;
      }),
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toEqual([0, 1]);
    // what the driver reports as its pool usage (the host's pool metrics)
    expect(gate.stats()).toEqual({ size: 2, busy: 2, waiting: 2 });
    holds[1]!.resolve();
    await runs[1];
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2]);
    expect(gate.stats()).toEqual({ size: 2, busy: 2, waiting: 1 });
    for (const hold of holds) hold.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(gate.stats()).toEqual({ size: 2, busy: 0, waiting: 0 });
  });

  it("fails a waiter with POOL_TIMEOUT after its deadline, without ever running it", async () => {
    const gate = new PoolGate(1, 50);
    const hold = deferred();
    const first = gate.run(() => hold.promise);
    let ran = false;
    await expect(
      gate.run(async () => {
        ran = true;
      }),
    ).rejects.toMatchObject({ code: "POOL_TIMEOUT" });
    // a waiter that timed out no longer counts as waiting
    expect(gate.stats()).toEqual({ size: 1, busy: 1, waiting: 0 });
    hold.resolve();
    await first;
    expect(ran).toBe(false);
    // the place the timed-out waiter left is free again
    expect(await gate.run(async () => "next")).toBe("next");
  });

  it("frees the place of an operation that fails", async () => {
    const gate = new PoolGate(1, 50);
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => 1)).toBe(1);
  });

  it("refuses an operation past a bounded queue at once, and a waiter past its deadline, with its own errors", async () => {
    const gate = new PoolGate(1, 50, {
      queue: 1,
      full: () => new Error("queue full"),
      timedOut: () => new Error("waited too long"),
    });
    const hold = deferred();
    const first = gate.run(() => hold.promise);
    const waiting = gate.run(async () => "ran");
    let ran = false;
    await expect(
      gate.run(async () => {
        ran = true;
      }),
    ).rejects.toThrow("queue full");
    await expect(waiting).rejects.toThrow("waited too long");
    expect(ran).toBe(false);
    // the queue's place is free again once the waiter left it
    const next = gate.run(async () => "next");
    hold.resolve();
    await first;
    expect(await next).toBe("next");
    expect(gate.stats()).toEqual({ size: 1, busy: 0, waiting: 0 });
  });
});
