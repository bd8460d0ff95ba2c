import type { SampleBatch } from "./batches.js";
import { countryBatches, priceLevelBatches, productBatches } from "./catalog.js";
import type { Generated } from "./generated.js";
import { journalBatches } from "./journals.js";
import { contactBatches, customerBatches } from "./parties.js";
import { createRandom, type Random } from "./random.js";
import { salesInvoiceBatches, salesOrderBatches } from "./sales.js";
import { resolveSizes, type SampleOptions, type SampleSizes } from "./sizes.js";

type Stage = (rng: Random, sizes: SampleSizes, generated: Generated) => Generator<SampleBatch>;

/** Referenced entities come before the entities that reference them. */
const stages: readonly Stage[] = [
  countryBatches,
  priceLevelBatches,
  productBatches,
  contactBatches,
  customerBatches,
  salesOrderBatches,
  salesInvoiceBatches,
  journalBatches,
];

export const defaultSeed = 1;

/**
 * Sample data for the sample model, in batches of at most 1000 records ready to insert in order:
 * every record comes after the records it references, collection items right after their owners'
 * batch. Lazy, so memory stays flat however large the sizes; the same seed and sizes give the
 * same records. Sizes are checked at the call, not on the first batch.
 *
 * @example
 * for (const { entity, records } of generateSampleData({ orders: 100, seed: 7 })) insert(entity, records);
 */
export function generateSampleData(options: SampleOptions = {}): Generator<SampleBatch, void, undefined> {
  const sizes = resolveSizes(options);
  const rng = createRandom(options.seed ?? defaultSeed);
  return run(rng, sizes);
}

function* run(rng: Random, sizes: SampleSizes): Generator<SampleBatch, void, undefined> {
  const generated: Generated = { countries: [], priceLevels: [], products: [], contacts: [], customers: [] };
  for (const stage of stages) yield* stage(rng, sizes, generated);
}
