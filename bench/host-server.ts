/**
 * Child-process entry of the host under test: the real `startHost`, reporting its URL to the
 * parent over IPC. See servers.ts for why the servers run in processes of their own.
 */
import { sampleModel } from "@bizdata/examples";
import { loadConfig, startHost } from "@bizdata/host";

// the sample model without the reference host's demo set: the benchmark seeds its own tenant. The
// host's default settings otherwise, as users run it: a log line per request at LOG_LEVEL=info
// (written to standard output, which servers.ts discards) and metrics on
const host = await startHost(
  {
    // one token and one address send every request of a run: rate limits it never reaches, so
    // that their counting is paid and nothing refused (the environment may set others)
    ...loadConfig({ RATE_LIMIT_PER_TOKEN: "10000000", RATE_LIMIT_PER_ADDRESS: "10000000", ...process.env }),
    databaseUrl: process.env.DATABASE_URL,
    port: 0,
  },
  { model: sampleModel },
);
process.send?.({ url: host.url });
// the parent closes the IPC channel when it is done (or dies): shut down cleanly then
process.on("disconnect", () => void host.close().then(() => process.exit(0)));
