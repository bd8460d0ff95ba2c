/**
 * What an application gives the host: its model and, optionally, how to seed it. The `bizdata`
 * CLI reads it from `bizdata.config.js` or `bizdata.config.ts` (or `--config FILE`), or takes a
 * bare model from `--model MODULE`; `startHost` takes it from its caller.
 */
import type { Model } from "@bizdata/core";
import type { AdminContext } from "./admin/admin-context.js";

/** a sign-in the host prints at start-up, for a demo set its seed creates */
export interface DemoSignIn {
  readonly tenant: string;
  readonly username: string;
  readonly password: string;
}

export interface BizdataConfig {
  readonly model: Model;
  /**
   * `bizdata seed [args…]`: creates tenants, users and data through `admin`; `args` are the
   * command-line arguments after `seed`, for the seed to read as it likes. Run it idempotently:
   * a second run should leave what the first one made.
   */
  readonly seed?: (admin: AdminContext, args: readonly string[]) => Promise<void>;
  /**
   * A demo set: on an empty embedded (PGlite) database the host runs `seed` with no arguments at
   * start, and prints these sign-ins at every embedded start. Never on PostgreSQL, where only an
   * explicit `bizdata seed` seeds.
   */
  readonly demo?: { readonly signIns: readonly DemoSignIn[] };
  /**
   * Whether `bizdata serve` runs the OAuth 2.1 server for third-party clients and agents when
   * OAUTH_SERVER is not set (default false).
   */
  readonly oauthServer?: boolean;
  /** Whether `bizdata serve` serves the web app at `/app/` when WEB_APP is not set (default false). */
  readonly webApp?: boolean;
}

/**
 * Types a `bizdata.config.js` or `bizdata.config.ts` (the CLI reads its default export).
 *
 * @example
 * export default defineConfig({
 *   model,
 *   async seed(admin) {
 *     await admin.createTenant("acme", "Acme Ltd");
 *     await admin.setUser("acme", "alice", "s3cret!", ["admin"]);
 *   },
 * });
 */
export const defineConfig = (config: BizdataConfig): BizdataConfig => config;
