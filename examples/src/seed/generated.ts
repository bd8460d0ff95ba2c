import type { Random } from "./random.js";

/** What later records point at, remembered while generating: Guids, plus the values lines copy. */
export interface Generated {
  readonly countries: string[];
  readonly priceLevels: { readonly guid: string; readonly discountPercent: number }[];
  readonly products: { readonly guid: string; readonly price: number; readonly description: string }[];
  readonly contacts: string[];
  readonly customers: string[];
}

/** One of `items` at random, or null when a size of 0 left none to point at. */
export const anyOf = <T>(rng: Random, items: readonly T[]): T | null => (items.length === 0 ? null : rng.pick(items));
