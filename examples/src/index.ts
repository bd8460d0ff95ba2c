/**
 * @bizdata/examples: the reference host app. A small sales domain (products, customers, orders,
 * invoices, journals) declared with the entity DSL, a deterministic generator of sample data for
 * it, the demo tenants, and the reference host's config for the `bizdata` CLI
 * (`host/reference-host.ts`, its default export).
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
export { demoSignIns, demoTenants, demoUsers, seedDemo } from "./host/demo-tenants.js";
export type { SampleBatch } from "./seed/batches.js";
export { defaultSeed, generateSampleData } from "./seed/generate.js";
export { seedSampleData } from "./seed/seed-sample-data.js";
export { defaultSampleSizes, type SampleOptions, type SampleSizes, sampleTotals } from "./seed/sizes.js";
