/** Rounds to `scale` decimal places, so a value never carries more digits than its field allows. */
export function round(value: number, scale: number): number {
  const factor = 10 ** scale;
  return Math.round(value * factor) / factor;
}

/** The sample documents are dated within two fixed years, so the data does not depend on today. */
const firstDay = Date.UTC(2024, 0, 1);
export const dayCount = 731;
const days = Array.from({ length: dayCount }, (_, i) => new Date(firstDay + i * 86_400_000).toISOString().slice(0, 10));

/** `YYYY-MM-DD` of day `index` (0 = 2024-01-01, at most dayCount - 1). */
export const isoDay = (index: number): string => days[index]!;

/** `prefix` followed by `n` zero-padded to `width` digits: `SKU-000001`. */
export const numbered = (prefix: string, n: number, width: number) => prefix + String(n).padStart(width, "0");
