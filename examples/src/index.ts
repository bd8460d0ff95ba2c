/**
 * @bizdata/examples: a small sales domain (products, customers, orders, invoices, journals)
 * declared with the entity DSL, and a deterministic generator of sample data for it.
 */
export * from "./domain/contact.js";
export * from "./domain/country.js";
export * from "./domain/customer.js";
export * from "./domain/features.js";
export * from "./domain/journal.js";
export * from "./domain/model.js";
export * from "./domain/price-level.js";
export * from "./domain/product.js";
export * from "./domain/sales-invoice.js";
export * from "./domain/sales-order.js";
export * from "./domain/sales-order-import.js";
export type { SampleBatch } from "./seed/batches.js";
export { defaultSeed, generateSampleData } from "./seed/generate.js";
export { defaultSampleSizes, type SampleOptions, type SampleSizes, sampleTotals } from "./seed/sizes.js";
