import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map.js";

describe("BoundedMap", () => {
  it("drops the oldest entry to take one more, and keeps the others in order", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("c", 3);
    expect([...map]).toEqual([
      ["b", 2],
      ["c", 3],
    ]);
  });

  it("changes a key it holds without dropping another", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("a", 10);
    expect([...map]).toEqual([
      ["a", 10],
      ["b", 2],
    ]);
  });

  it("keeps nothing at capacity 0", () => {
    const map = new BoundedMap<string, number>(0);
    map.set("a", 1);
    expect(map.size).toBe(0);
    expect(map.getOrMake("a", () => 2)).toBe(2);
    expect(map.has("a")).toBe(false);
  });

  it("makes a missing value once and keeps it", () => {
    const map = new BoundedMap<string, string>(10);
    const made: string[] = [];
    const make = (key: string) => {
      made.push(key);
      return key.toUpperCase();
    };
    expect([map.getOrMake("x", make), map.getOrMake("x", make), map.getOrMake("y", make)]).toEqual(["X", "X", "Y"]);
    expect(made).toEqual(["x", "y"]);
  });
});
