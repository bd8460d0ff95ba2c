/**
 * @bizdata/host: the Hono application over a model and a database, its configuration, the start-up
 * of a host and the `bizdata` CLI. Embed `createApp` in your own Node server, or run `startHost`
 * (what `bizdata serve` does with the model of `bizdata.config.js`/`.ts` or `--model`).
 *
 * @example
 * const host = await startHost(loadConfig(), { model });
 * console.log(host.url);
 */
export { type AdminContext, adminContext } from "./admin/admin-context.js";
export type { BulkInsertOptions, RecordBatch } from "./admin/bulk-insert.js";
export { type App, type AppOptions, createApp } from "./app.js";
export { authTables } from "./auth/auth-tables.js";
export type { Principal } from "./auth/principal.js";
export { loadSigningKeys, type SigningKeys } from "./auth/signing-keys.js";
export { type BizdataConfig, type DemoSignIn, defineConfig } from "./bizdata-config.js";
export { ChangeStreams } from "./changes/change-streams.js";
export { type HostConfig, loadConfig } from "./config.js";
export { ImportFailed, type ImportOptions, type ImportSummary, importFile } from "./import/import-file.js";
export { migrateService, serviceTables } from "./schema.js";
export { type StartOptions, startHost } from "./server.js";
export { createTenant, setFeature, setUser, tenantFeatures } from "./tenants/tenant-admin.js";
export { WebhookDeliverer } from "./webhooks/webhook-deliverer.js";
export type { WebhookSettings } from "./webhooks/webhook-settings.js";
export { webhookTables } from "./webhooks/webhook-tables.js";
