import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareDecimal, formatDecimal, parseDecimal } from "./decimal.js";

const normalize = (text: string) => {
  const d = parseDecimal(text);
  return d === undefined ? undefined : formatDecimal(d);
};

describe("parseDecimal / formatDecimal", () => {
  it.each([
    ["12.50", "12.5"],
    ["-0012.500", "-12.5"],
    ["0", "0"],
    ["-0.000", "0"],
    ["007", "7"],
    ["0.05", "0.05"],
    ["1e-7", "0.0000001"],
    ["1.5e+21", "1500000000000000000000"],
    ["-2.5e-3", "-0.0025"],
    ["12345678901234.5678", "12345678901234.5678"],
  ])("%s → %s", (text, expected) => {
    expect(normalize(text)).toBe(expected);
  });

  it.each(["", "-", "1.", ".5", "+1", "1,5", "0x10", "Infinity", "NaN", " 1"])("refuses %j", (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });

  it("reads a float as the decimal it prints as, not its binary expansion", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(Number(normalize(String(n)))).toBe(n === 0 ? 0 : n);
      }),
    );
  });
});

describe("compareDecimal", () => {
  const compare = (a: string, b: string) => Math.sign(compareDecimal(parseDecimal(a)!, parseDecimal(b)!));

  it.each([
    ["1", "2", -1],
    ["10", "9.99", 1],
    ["-10", "-9.99", -1],
    ["0.1", "0.10", 0],
    ["-0", "0", 0],
    ["-1", "0", -1],
    ["1.05", "1.5", -1],
    ["5000.01", "5000", 1],
  ])("%s vs %s → %i", (a, b, expected) => {
    expect(compare(a, b)).toBe(expected);
  });

  it("agrees with number comparison on integers", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (a, b) => {
        expect(compare(String(a), String(b))).toBe(Math.sign(a - b));
      }),
    );
  });
});
