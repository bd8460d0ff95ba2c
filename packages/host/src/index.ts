/**
 * @bizdata/host: the Hono application over a model and a database, its configuration, and the
 * reference host's start-up. Embed `createApp` in your own Node server, or run `startHost`.
 *
 * @example
 * const host = await startHost(loadConfig(), { model });
 * console.log(host.url);
 */
export { type App, type AppOptions, createApp } from "./app.js";
export type { Principal } from "./auth/principal.js";
export { loadSigningKeys, type SigningKeys } from "./auth/signing-keys.js";
export { type HostConfig, loadConfig } from "./config.js";
export { demoTenants, demoUsers, seedDemo } from "./seed/demo-tenants.js";
export { seedSampleData } from "./seed/seed-sample-data.js";
export { type StartOptions, startHost } from "./server.js";
export { createTenant, setFeature, setUser, tenantFeatures } from "./tenants/tenant-admin.js";
