import { decimal, entity, type RecordOf, text } from "@bizdata/core";

/** A named discount off list price that a sales order can be priced at. */
export const PriceLevel = entity("PriceLevel", {
  naturalKey: "Name",
  fields: {
    Name: text({ required: true, maxLength: 64 }),
    DiscountPercent: decimal({ precision: 5, scale: 2, min: 0, max: 100 }),
  },
  title: (p) => p.Name,
});
export type PriceLevelRecord = RecordOf<typeof PriceLevel>;
