/**
 * `pnpm bench`: the host against a hand-written floor on the same PostgreSQL, scenario by
 * scenario (scenarios.ts), with a table on stdout and bench/results/latest.json. Settings come
 * from the environment (settings.ts); it exits non-zero when a scenario mostly failed.
 */
import { isDeepStrictEqual } from "node:util";
import { type Measurement, measure, mostlyFailed, probe, type Target } from "./load.js";
import { benchTenant, prepareDatabase } from "./prepare.js";
import { describeMachine, type ScenarioResult, table, writeJson } from "./report.js";
import { scenarios } from "./scenarios.js";
import { startServer } from "./servers.js";
import { loadSettings } from "./settings.js";

const settings = loadSettings();
const machine = describeMachine();
const data = await prepareDatabase(settings.databaseUrl, settings.scale);
const runId = Date.now().toString(36);
let skus = 0;
const scenarioData = { ...data, uniqueSku: () => `bench-${runId}-${skus++}` };

/** a JSON value with every leaf replaced by its type: what "the same response" means across targets */
const shape = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.slice(0, 1).map(shape)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : typeof value;

async function signIn(url: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ TenantId: benchTenant.id, Username: benchTenant.username, Password: benchTenant.password }),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

const env = {
  DATABASE_URL: settings.databaseUrl,
  // one token serves the whole run, however long BENCH_DURATION makes it
  ACCESS_TOKEN_TTL: String(24 * 3600),
  BENCH_TENANT: benchTenant.id,
};
const host = await startServer("./host-server.ts", env);
const floor = await startServer("./floor-server.ts", env).catch(async (error) => {
  await host.stop();
  throw error;
});
try {
  // the floor ignores the token, but gets the same request bytes to parse
  const headers = { authorization: `Bearer ${await signIn(host.url)}` };
  const targets: Target[] = [
    { name: "host", url: host.url, headers },
    { name: "floor", url: floor.url, headers },
  ];
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const [hostAnswer, floorAnswer] = await Promise.all(targets.map((t) => probe(t, scenario, scenarioData)));
    if (!isDeepStrictEqual(shape(hostAnswer), shape(floorAnswer)))
      throw new Error(
        `${scenario.name}: the floor answers ${JSON.stringify(floorAnswer)}, the host ${JSON.stringify(hostAnswer)}`,
      );
    const measured: Measurement[] = [];
    for (const target of targets) {
      console.error(`${scenario.name} on ${target.name}…`);
      measured.push(await measure(target, scenario, scenarioData, settings));
    }
    results.push({ scenario: scenario.name, host: measured[0]!, floor: measured[1]! });
  }
  console.log(table(results, machine, settings));
  console.log(`\nwritten to ${await writeJson(results, machine, settings)}`);
  const failed = results.flatMap((r) =>
    targets.filter((t) => mostlyFailed(r[t.name])).map((t) => `${r.scenario} on ${t.name}`),
  );
  if (failed.length > 0) {
    console.error(`\nMOSTLY FAILED (the numbers above measure errors): ${failed.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  await Promise.all([host.stop(), floor.stop()]);
}
