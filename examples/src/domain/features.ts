/** The tenant features the sample business logic is gated by. */
export const sampleFeatures = [
  /** sales order lines are priced at the order's price level discount */
  "PriceLevels",
  /** saving an order that takes a customer over their credit limit asks for confirmation */
  "CreditCheck",
  /** changing a product's cost raises a warning message with the old and new cost */
  "CostChangeNotice",
] as const;

export type SampleFeature = (typeof sampleFeatures)[number];
