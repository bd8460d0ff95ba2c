import { Journal } from "../domain/journal.js";
import { inBatches, type SampleBatch, titled } from "./batches.js";
import type { Random } from "./random.js";
import type { SampleSizes } from "./sizes.js";
import { dayCount, isoDay, numbered } from "./values.js";
import { journalDescriptions } from "./vocabulary.js";

export function* journalBatches(rng: Random, sizes: SampleSizes): Generator<SampleBatch> {
  yield* inBatches("Journal", sizes.journals, (i) =>
    titled(Journal, {
      Guid: rng.uuid(),
      Title: null,
      DocNumber: numbered("JE-", i + 1, 6),
      Description: rng.pick(journalDescriptions),
      PostingDate: isoDay(rng.int(0, dayCount - 1)),
      IsPosted: rng.chance(0.4),
      Amount: rng.int(1_000, 5_000_000) / 100,
    }),
  );
}
