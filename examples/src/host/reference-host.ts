/**
 * The reference host: the sample model, its seed and its demo set, as a config for the `bizdata`
 * CLI (`pnpm start` runs `bizdata serve --config examples/src/host/reference-host.ts`).
 *
 * `bizdata seed` creates the demo tenants and users plus the sample data (idempotent); with
 * `--tenant ID` only sample data, into that existing tenant. An empty embedded database is seeded
 * with the demo set at start. The OAuth 2.1 server for third-party clients is on, and the web app
 * at /app/ signs in through it.
 */
import { defineConfig } from "@bizdata/host";
import { sampleModel } from "../domain/model.js";
import { seedSampleData } from "../seed/seed-sample-data.js";
import { demoSignIns, seedDemo } from "./demo-tenants.js";
import { parseSeedArguments } from "./seed-arguments.js";

export default defineConfig({
  model: sampleModel,
  async seed(admin, args) {
    const { tenant, sizes } = parseSeedArguments(args);
    if (tenant === undefined) return seedDemo(admin, sizes);
    if (!(await admin.tenantExists(tenant))) throw new Error(`Tenant "${tenant}" does not exist; create it first.`);
    const result = await seedSampleData(admin, tenant, sizes);
    console.log(result.seeded ? `seeded ${result.records} records` : `tenant ${tenant} already has sample data`);
  },
  demo: { signIns: demoSignIns },
  // third-party clients and agents sign users in here (OAUTH_SERVER=off turns it off)
  oauthServer: true,
  // the web app at /app/, signing in through that server (WEB_APP=off turns it off)
  webApp: true,
});
