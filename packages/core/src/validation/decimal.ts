/**
 * Exact decimals for writes. A decimal is carried as its digits, never as a float, so a value
 * reaches storage exactly as the client meant it (api-conventions "Numbers": never silently
 * rounded) and precision/scale are checked on the digits the client actually sent.
 */

export interface Decimal {
  readonly negative: boolean;
  /** integer digits without leading zeros ("" for zero) */
  readonly int: string;
  /** fraction digits without trailing zeros ("" for none) */
  readonly frac: string;
}

/** A decimal string as accepted on the wire with `IEEE754Compatible=true`: no exponent, no `+`. */
export const decimalText = /^-?\d+(?:\.\d+)?$/;

/**
 * `String(number)` may use an exponent (`1e-7`, `1.5e+21`), so the parser accepts one too. Only
 * numbers reach it with an exponent (at most 3 digits), so the zero padding below stays small.
 */
const decimalParts = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * Parses a decimal string, or the shortest round-trip text of a finite number (which is what
 * `String` yields, so `0.1` becomes exactly `0.1`, not the binary float's expansion).
 *
 * @example parseDecimal("-012.50") // { negative: true, int: "12", frac: "5" }
 */
export function parseDecimal(text: string): Decimal | undefined {
  const match = decimalParts.exec(text);
  if (match === null) return undefined;
  const [, sign, intPart = "", fracPart = "", exponent] = match;
  let digits = intPart + fracPart;
  let point = intPart.length + Number(exponent ?? 0);
  // shift the decimal point by the exponent, padding with zeros on either side
  if (point < 0) {
    digits = "0".repeat(-point) + digits;
    point = 0;
  } else if (point > digits.length) {
    digits = digits.padEnd(point, "0");
  }
  const int = digits.slice(0, point).replace(/^0+/, "");
  const frac = digits.slice(point).replace(/0+$/, "");
  return { negative: sign === "-" && (int !== "" || frac !== ""), int, frac };
}

/** @example formatDecimal(parseDecimal("12.50")!) // "12.5" */
export function formatDecimal(d: Decimal): string {
  return `${d.negative ? "-" : ""}${d.int || "0"}${d.frac ? `.${d.frac}` : ""}`;
}

/** Negative, zero or positive as `a` is less than, equal to or greater than `b`, exactly. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const magnitude = Math.sign(compareMagnitude(a, b));
  // `|| 0` turns the -0 of two equal negatives into 0
  return (a.negative ? -magnitude : magnitude) || 0;
}

function compareMagnitude(a: Decimal, b: Decimal): number {
  if (a.int.length !== b.int.length) return a.int.length - b.int.length;
  if (a.int !== b.int) return a.int < b.int ? -1 : 1;
  const width = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(width, "0");
  const fb = b.frac.padEnd(width, "0");
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
