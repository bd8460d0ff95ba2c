import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isExactNumber } from "./exact-number.js";

describe("isExactNumber", () => {
  it.each([
    "0",
    "-0",
    "100",
    "1.10",
    "-0.5",
    "0.1",
    "1e2",
    "1E+2",
    "1.5e-3",
    "0e999999",
    "9007199254740992",
    "12345678901234567000", // the double is …168, but it prints back as the literal
    "0.30000000000000004",
    "1.7976931348623157e308",
    "5e-324",
    "000.000",
  ])("accepts %s", (literal) => {
    expect(isExactNumber(literal)).toBe(true);
  });

  it.each([
    "12345678901234567890",
    "9007199254740993",
    "0.1000000000000000000001",
    "1e400",
    "-1e400",
    "1e-400",
    "2e-324",
    "1.00000000000000000001e5",
  ])("refuses %s", (literal) => {
    expect(isExactNumber(literal)).toBe(false);
  });

  it("accepts every double as JSON.stringify writes it", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => isExactNumber(JSON.stringify(d))),
    );
  });

  it("accepts an integer literal exactly when the double it parses to prints back as that integer", () => {
    // Below 2^69 (< 1e21) String() prints integers without an exponent, so BigInt can read it back.
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 69n), max: 2n ** 69n }), (n) => {
        expect(isExactNumber(String(n))).toBe(BigInt(String(Number(n))) === n);
      }),
    );
  });
});
