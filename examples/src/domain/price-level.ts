import { decimal, entity, type RecordOf, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const priceLevelFields = {
  Name: text({ required: true, maxLength: 64 }),
  DiscountPercent: decimal({ precision: 5, scale: 2, min: 0, max: 100 }),
};

/** A named discount off list price that a sales order can be priced at. */
export const PriceLevel = entity("PriceLevel", {
  naturalKey: "Name",
  fields: priceLevelFields,
  title: (p) => p.Name,
});
export type PriceLevelRecord = RecordOf<typeof PriceLevel>;
