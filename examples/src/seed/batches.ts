import type { AnyEntity, EntityDefinition, RecordOf } from "@bizdata/core";
import type { SampleEntityName } from "../domain/model.js";

/** Records of one entity, shaped as stored: references as Guids, complex values nested, no collections. */
export interface SampleBatch {
  readonly entity: SampleEntityName;
  readonly records: Record<string, unknown>[];
}

/** Large enough for efficient bulk inserts, small enough to keep memory flat. */
export const batchSize = 1000;

type CollectionKeys<E> =
  E extends EntityDefinition<string, infer F, any>
    ? { [K in keyof F]: F[K] extends { kind: "collection" } ? K : never }[keyof F]
    : never;

/** A stored record of `E`: owned collections are left out, their items come as batches of their own. */
export type Row<E> = Omit<RecordOf<E>, CollectionKeys<E>>;

/**
 * Sets the Title the service would derive on save, so seeded rows look like rows written through
 * the API. Title functions read scalar fields only, which is why a row without collections will do.
 */
export function titled<E extends AnyEntity>(definition: E, row: Row<E>): Row<E> {
  (row as unknown as { Title: string | null }).Title = definition.title?.(row as never) ?? null;
  return row;
}

/** Makes `count` records and yields them in batches of at most `batchSize`. */
export function* inBatches(
  entity: SampleEntityName,
  count: number,
  make: (index: number) => Record<string, unknown>,
): Generator<SampleBatch, void, undefined> {
  for (let start = 0; start < count; start += batchSize) {
    const records: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i++) records.push(make(i));
    yield { entity, records };
  }
}

/**
 * Makes `count` owner records; `make` pushes each owner's collection items into `items`. Each
 * owner batch is followed by batches of its items, so items always come after their owner.
 */
export function* withItems(
  owner: SampleEntityName,
  item: SampleEntityName,
  count: number,
  make: (index: number, items: Record<string, unknown>[]) => Record<string, unknown>,
): Generator<SampleBatch, void, undefined> {
  for (let start = 0; start < count; start += batchSize) {
    const owners: Record<string, unknown>[] = [];
    const items: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i++) owners.push(make(i, items));
    yield { entity: owner, records: owners };
    for (let at = 0; at < items.length; at += batchSize) {
      yield { entity: item, records: items.slice(at, at + batchSize) };
    }
  }
}
