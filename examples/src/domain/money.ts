/**
 * Exact money arithmetic for the sample logic: decimals are carried as numbers in records, so
 * products and sums go through integers of ten-thousandths (scale 4) and round half away from
 * zero, instead of accumulating binary floating-point error.
 */
const SCALE = 10_000n;

const toUnits = (n: number): bigint => BigInt(Math.round(n * 10_000));

/** a × b, rounded to 4 decimal places */
export function multiply(a: number, b: number): number {
  const product = toUnits(a) * toUnits(b);
  const negative = product < 0n;
  const magnitude = negative ? -product : product;
  const rounded = (magnitude + SCALE / 2n) / SCALE;
  return Number(negative ? -rounded : rounded) / 10_000;
}

/** the sum, exact at 4 decimal places */
export const sum = (values: readonly number[]): number =>
  Number(values.reduce((total, v) => total + toUnits(v), 0n)) / 10_000;
