/**
 * Child-process entry of the host under test: the real `startHost`, reporting its URL to the
 * parent over IPC. See servers.ts for why the servers run in processes of their own.
 */
import { sampleModel } from "@bizdata/examples";
import { loadConfig, startHost } from "@bizdata/host";

// the sample model without the reference host's demo set: the benchmark seeds its own tenant
const host = await startHost(
  { ...loadConfig(), databaseUrl: process.env.DATABASE_URL, port: 0, logLevel: "warn" },
  { model: sampleModel },
);
process.send?.({ url: host.url });
// the parent closes the IPC channel when it is done (or dies): shut down cleanly then
process.on("disconnect", () => void host.close().then(() => process.exit(0)));
