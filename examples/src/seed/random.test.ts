import { describe, expect, it } from "vitest";
import { createRandom } from "./random.js";

const draws = (seed: number) => {
  const rng = createRandom(seed);
  return Array.from({ length: 5 }, () => rng.uuid());
};

describe("createRandom", () => {
  it("repeats its stream for the same seed and not for another", () => {
    expect(draws(42)).toEqual(draws(42));
    expect(draws(43)).not.toEqual(draws(42));
  });

  it("makes lowercase version 4 UUIDs", () => {
    const rng = createRandom(1);
    for (let i = 0; i < 1000; i++) {
      expect(rng.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it("draws integers within the bounds, reaching both", () => {
    const rng = createRandom(3);
    const seen = new Set(Array.from({ length: 500 }, () => rng.int(1, 4)));
    expect([...seen].sort()).toEqual([1, 2, 3, 4]);
  });

  it("refuses a seed that is not an integer and an empty pick", () => {
    expect(() => createRandom(1.5)).toThrow(RangeError);
    expect(() => createRandom(1).pick([])).toThrow(RangeError);
  });
});
