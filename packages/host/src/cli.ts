#!/usr/bin/env node
/** The `bizdata` command (cli/run-cli.ts); `bizdata --help` lists what it does. */
import { runCli } from "./cli/run-cli.js";
import { guardProcess } from "./lifecycle/process-guard.js";

try {
  const host = await runCli(process.argv.slice(2), { env: process.env, cwd: process.cwd(), print: console.log });
  if (host !== undefined) {
    // a database that goes away never takes the serving process with it (architecture: Faults)
    guardProcess(host.logger);
    const stop = async (signal: NodeJS.Signals) => {
      host.logger.info({ signal }, "stopping: requests in flight may finish");
      await host.close();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
