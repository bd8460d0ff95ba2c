import { describe, expect, it } from "vitest";
import { isReadOnlyServerError, leavingReadOnlyServers } from "./leave-read-only-servers.js";
import type { ReplaceablePool } from "./replaceable-pool.js";

const withCode = (code: string) => Object.assign(new Error(code), { code });
/** drizzle wraps what the driver threw */
const wrapped = (code: string) => Object.assign(new Error("Failed query"), { cause: withCode(code) });

/** a pool that counts its replacements */
function countingPool(): ReplaceablePool & { replaced: number } {
  return {
    replaced: 0,
    get sql(): never {
      throw new Error("not used");
    },
    replace() {
      this.replaced++;
    },
    end: async () => {},
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = (error: Error) => async () => {
  throw error;
};

describe("isReadOnlyServerError", () => {
  it("is true for 25006, the driver's or wrapped, and false for other errors", () => {
    expect([withCode("25006"), wrapped("25006")].map(isReadOnlyServerError)).toEqual([true, true]);
    expect([withCode("25P02"), withCode("08006"), new Error("x"), null].map(isReadOnlyServerError)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("leavingReadOnlyServers", () => {
  it("replaces every pool when work fails with 25006, and passes the error and results on", async () => {
    const pools = [countingPool(), countingPool()];
    const writing = leavingReadOnlyServers(pools);
    expect(await writing(async () => 7)).toBe(7);
    await expect(writing(failing(withCode("23505")))).rejects.toMatchObject({ code: "23505" });
    expect(pools.map((p) => p.replaced)).toEqual([0, 0]);
    await expect(writing(failing(wrapped("25006")))).rejects.toMatchObject({ cause: { code: "25006" } });
    expect(pools.map((p) => p.replaced)).toEqual([1, 1]);
  });

  it("replaces once for the work that ran on the replaced pools, and at most once per interval", async () => {
    const pool = countingPool();
    const writing = leavingReadOnlyServers([pool], 100);
    // twelve writes in flight on the demoted server: one replacement
    const inFlight = Array.from({ length: 12 }, () =>
      writing(async () => {
        await sleep(10);
        throw withCode("25006");
      }),
    );
    await Promise.allSettled(inFlight);
    expect(pool.replaced).toBe(1);
    // work started after the replacement, within the interval: the server stays read-only, no churn
    await writing(failing(withCode("25006"))).catch(() => {});
    expect(pool.replaced).toBe(1);
    await sleep(110);
    await writing(failing(withCode("25006"))).catch(() => {});
    expect(pool.replaced).toBe(2);
  });
});
