/**
 * `pnpm bench:layers`: where the host's CPU time per request goes, layer by layer, for a point
 * read, a page of 100 records and a create (the read-one, list-select and create scenarios), on
 * the bench tenant's data. `pnpm bench`
 * says how far the host is from its floors; this says which layer the distance is in.
 *
 * In this process, `BENCH_CONNECTIONS` requests in flight, CPU per request from
 * `process.cpuUsage`, the median of `LAYERS_ROUNDS` rounds of `LAYERS_OPS` requests per layer,
 * the layers taking turns in each round:
 * - `postgres.js`: the statements the service sent for the request, straight on postgres.js the
 *   way the driver sends them to a session that holds the tenant: on a connection opened in the
 *   application role holding the tenant (read-only for a read), one statement alone, several
 *   between BEGIN and COMMIT, together;
 * - `core database`: the same statements through @bizdata/core's database and tenant scope;
 * - `OData service`: the request through `service.handle` over the real database;
 * - `OData service, no I/O`: the same over a database that replays the real one's answers at
 *   once (replay-database.ts): what the service's own code costs.
 *
 * Over HTTP, each layer a child process over the replaying database (layers-server.ts), loaded by
 * autocannon at one fixed rate (`LAYERS_RATE` requests/s) so that all meet the same load, CPU per
 * request from /proc, the median of `LAYERS_ROUNDS` slices of `LAYERS_SLICE` seconds: `hono` (the
 * recorded answer, no service), `service` (a Hono route into the OData service) and `app` (the
 * host's whole app), the app four times: with logs at `warn` and metrics off, with either one on
 * and with both (the host's defaults: a log line per request at `info`, metrics on), each of the
 * three set against the first, so that the table shows what the request log line and the metrics
 * cost a request. Each layer's figure includes the layers under it. `BENCH_PROFILE=<folder>`
 * writes a CPU profile of each HTTP layer's process (`<folder>/<scenario>-<layer>`) when it stops.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { inTenant, openDatabase, type SqlQuery, toQuery, watchStatements } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { createApp, loadConfig, loadSigningKeys } from "@bizdata/host";
import { createODataService, type ODataRequest, type ODataResult } from "@bizdata/odata";
import type postgres from "@bizdata/postgres";
import autocannon from "autocannon";
import type { HttpLayer, LayerSetup } from "./layers-server.js";
import { median } from "./median.js";
import { benchTenant, prepareDatabase } from "./prepare.js";
import { cpuPerRequest } from "./process-cpu.js";
import { type Answers, recordAnswers, replaying } from "./replay-database.js";
import { describeMachine } from "./report.js";
import { LIST_SELECT_OPTIONS, odataUrl, READ_ONE_OPTIONS, readOneUrl } from "./scenarios.js";
import { BUILT_PACKAGES, startServer } from "./servers.js";
import { loadSettings, wholeSetting } from "./settings.js";
import { tenantSessions } from "./tenant-sessions.js";

const settings = loadSettings();
const rounds = wholeSetting("LAYERS_ROUNDS", 5);
const ops = wholeSetting("LAYERS_OPS", 3000);
const rate = wholeSetting("LAYERS_RATE", 2000);
const slice = wholeSetting("LAYERS_SLICE", 3);
const inFlight = settings.connections;
const tenant = benchTenant.id;

const data = await prepareDatabase(settings.databaseUrl, 1);
const url = data.databaseUrl;
const db = await openDatabase({ url, max: inFlight });
const pg = { max: inFlight, prepare: true, onnotice: () => {}, connection: { plan_cache_mode: "force_custom_plan" } };
const tenantSql = tenantSessions(url, pg, tenant);

const runId = randomUUID().slice(0, 8);
let made = 0;
const createBody = () =>
  JSON.stringify({ SKU: `bench-layers-${runId}-${made++}`, SalesDescription: "Bench product", Cost: 12.5 });
let turn = 0;
const nextGuid = () => data.guids[turn++ % data.guids.length]!;

interface LayeredScenario {
  readonly name: "read-one" | "list-select" | "create";
  readonly write: boolean;
  /** the next request, as the service takes it */
  readonly request: () => ODataRequest;
  /** the next request over HTTP */
  readonly http: () => { method: "GET" | "POST"; path: string; body?: string };
  /** what the recorded statements' parameters hold that must differ in the next request */
  readonly varied: (answer: ODataResult, request: ODataRequest) => Promise<ReadonlyMap<string, () => string>>;
}

const scenarios: readonly LayeredScenario[] = [
  {
    name: "read-one",
    write: false,
    request: () => ({
      method: "GET",
      path: `Product(${nextGuid()})`,
      search: new URLSearchParams(READ_ONE_OPTIONS.map(([name, value]): [string, string] => [name, value])),
      tenantId: tenant,
    }),
    http: () => ({ method: "GET", path: readOneUrl(nextGuid()) }),
    // the key of `Product(<guid>)`, as the statement takes it
    varied: async (_, request) => new Map([[/\(([^)]+)\)/.exec(request.path)![1]!.toLowerCase(), nextGuid]]),
  },
  {
    name: "list-select",
    write: false,
    request: () => ({
      method: "GET",
      path: "Product",
      search: new URLSearchParams(LIST_SELECT_OPTIONS.map(([name, value]): [string, string] => [name, value])),
      tenantId: tenant,
    }),
    http: () => ({ method: "GET", path: odataUrl("Product", LIST_SELECT_OPTIONS) }),
    // the same page every time
    varied: async () => new Map(),
  },
  {
    name: "create",
    write: true,
    request: () => {
      const text = createBody();
      return {
        method: "POST",
        path: "Product",
        search: new URLSearchParams(),
        tenantId: tenant,
        body: async () => JSON.parse(text),
      };
    },
    http: () => ({ method: "POST", path: "/api/Product", body: createBody() }),
    varied: async (answer, request) => {
      const { Guid } = JSON.parse(answer.body!) as { Guid: string };
      const { SKU } = (await request.body!()) as { SKU: string };
      return new Map([
        [Guid, randomUUID],
        [SKU, () => `bench-layers-${runId}-${made++}`],
      ]);
    },
  },
];

/** CPU microseconds per call of `op`, `count` calls with `inFlight` at a time */
async function cpuPerCall(op: () => Promise<unknown>, count: number): Promise<number> {
  let left = count;
  const start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await op();
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

/** the layers in this process, each an operation for the next request */
async function inProcessLayers(scenario: LayeredScenario) {
  const answers: Answers = new Map();
  const statements: SqlQuery[] = [];
  const recorded = watchStatements(recordAnswers(db, answers), (sent) => statements.push(...sent.map(toQuery)));
  // the statements of a request in the steady state: what the service keeps for a while (the
  // tenant's features, read by the first write) read before the one recorded
  const service = createODataService({ db, model: sampleModel });
  await service.handle(scenario.request());
  const request = scenario.request();
  const answer = await createODataService({ db: recorded, model: sampleModel }).handle(request);
  if (answer.status >= 300) throw new Error(`${scenario.name}: ${answer.status} ${answer.body}`);
  // a read is one statement (architecture); one that took more would be measured wrongly below
  if (!scenario.write && statements.length !== 1)
    throw new Error(
      `${scenario.name} sent ${statements.length} statements, not one: ${statements.map((s) => s.sql).join("; ")}`,
    );
  const varied = await scenario.varied(answer, request);
  const next = () =>
    statements.map((s) => ({
      sql: s.sql,
      params: s.params.map((p) => (typeof p === "string" && varied.has(p) ? varied.get(p)!() : p)),
    }));
  const send = (on: postgres.Sql, s: SqlQuery) => on.unsafe(s.sql, s.params as never[], { prepare: true });
  const direct =
    statements.length === 1
      ? () => send(scenario.write ? tenantSql.writes : tenantSql.reads, next()[0]!)
      : async () => {
          const reserved = await tenantSql.writes.reserve();
          try {
            const outcomes = await Promise.allSettled([
              reserved.unsafe("BEGIN"),
              ...next().map((s) => send(reserved, s)),
              reserved.unsafe("COMMIT"),
            ]);
            const failed = outcomes.find((o) => o.status === "rejected");
            if (failed !== undefined) throw failed.reason;
          } finally {
            reserved.release();
          }
        };
  const core = scenario.write
    ? () => inTenant(db, tenant, (tx) => tx.commitWith!(next()), { deferInserts: false })
    : () => inTenant(db, tenant, (tx) => tx.query(next()[0]!), { readOnly: true, oneStatement: true });
  const noIo = createODataService({ db: replaying(db.store, answers), model: sampleModel });
  return {
    answers,
    answer,
    layers: [
      ["postgres.js", direct],
      ["core database", core],
      ["OData service", () => service.handle(scenario.request())],
      ["OData service, no I/O", () => noIo.handle(scenario.request())],
    ] as const,
  };
}

/**
 * A reader's token, and what the app's own statements answered for it (the token's standing,
 * checked against the database on a request): the app over HTTP replays them with the service's
 */
async function bearerToken(): Promise<{ token: string; appAnswers: Answers }> {
  const appAnswers: Answers = new Map();
  const app = createApp({
    db: recordAnswers(db, appAnswers),
    model: sampleModel,
    keys: await loadSigningKeys(db),
    config: loadConfig({ LOG_LEVEL: "silent" }),
  });
  const response = await app.request("/api/auth/signin", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ TenantId: tenant, Username: benchTenant.username, Password: benchTenant.password }),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const token = ((await response.json()) as { access_token: string }).access_token;
  const read = await app.request(readOneUrl(nextGuid()), { headers: { authorization: `Bearer ${token}` } });
  if (!read.ok) throw new Error(`a read with the token failed: ${read.status} ${await read.text()}`);
  return { token, appAnswers };
}

/** CPU microseconds per request of the process `pid` serving `target` at `rate` requests/s for `seconds` */
async function httpCpuPerRequest(
  target: string,
  pid: number | undefined,
  scenario: LayeredScenario,
  token: string,
  seconds: number,
) {
  const { result, cpuPerRequest: cpu } = await cpuPerRequest(
    pid,
    () =>
      autocannon({
        url: target,
        connections: inFlight,
        overallRate: rate,
        duration: seconds,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        requests: [{ setupRequest: (request) => ({ ...request, ...scenario.http() }) }],
      }),
    (r) => r["2xx"],
  );
  if (result.non2xx + result.errors > 0)
    throw new Error(
      `${scenario.name} over HTTP (${target}): ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}) and ${result.errors} errors.`,
    );
  return cpu ?? Number.NaN;
}

const BARE_APP = "app, logs at warn, metrics off";
/**
 * The HTTP layers, each a process of its own; the app four times: with the host's default
 * observability (a log line per request at LOG_LEVEL=info, metrics on), and without the log
 * line, without metrics, and without either, so that the table shows what each costs a request
 */
const HTTP_LAYERS: readonly {
  readonly name: string;
  readonly layer: HttpLayer;
  readonly env?: Record<string, string>;
}[] = [
  { name: "hono", layer: "hono" },
  { name: "service", layer: "service" },
  { name: BARE_APP, layer: "app", env: { LOG_LEVEL: "warn", METRICS: "off" } },
  { name: "app, logs at warn", layer: "app", env: { LOG_LEVEL: "warn" } },
  { name: "app, metrics off", layer: "app", env: { METRICS: "off" } },
  { name: "app (defaults: logs at info, metrics on)", layer: "app" },
];
const machine = describeMachine();
const { token, appAnswers } = await bearerToken();
const tables: string[] = [];
try {
  for (const scenario of scenarios.filter((s) => settings.only?.includes(s.name) ?? true)) {
    const { answers, answer, layers } = await inProcessLayers(scenario);
    const cpu = new Map<string, number[]>(layers.map(([name]) => [name, []]));
    for (const [, op] of layers) await cpuPerCall(op, ops);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < layers.length; i++) {
        const [name, op] = layers[(round + i) % layers.length]!;
        cpu.get(name)!.push(await cpuPerCall(op, ops));
      }
      console.error(`${scenario.name} in process: round ${round + 1} of ${rounds}`);
    }
    const served: LayerSetup = { answers: [...appAnswers, ...answers], answer, tenantId: tenant };
    const servers = await Promise.all(
      HTTP_LAYERS.map(({ name, layer, env }) =>
        startServer(
          "./layers-server.ts",
          { DATABASE_URL: url, LAYER: layer, ...env },
          {
            nodeOptions: [
              ...BUILT_PACKAGES,
              ...(settings.profileDir
                ? ["--cpu-prof", `--cpu-prof-dir=${settings.profileDir}/${scenario.name}-${name.replace(/\W+/g, "-")}`]
                : []),
            ],
            setup: served,
          },
        ),
      ),
    );
    try {
      for (const { name } of HTTP_LAYERS) cpu.set(`HTTP: ${name}`, []);
      for (const server of servers) await httpCpuPerRequest(server.url, server.pid, scenario, token, settings.warmup);
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < servers.length; i++) {
          const k = (round + i) % servers.length;
          cpu
            .get(`HTTP: ${HTTP_LAYERS[k]!.name}`)!
            .push(await httpCpuPerRequest(servers[k]!.url, servers[k]!.pid, scenario, token, slice));
        }
        console.error(`${scenario.name} over HTTP: round ${round + 1} of ${rounds}`);
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    const rows = [...cpu].map(([name, xs]) => [name, median(xs)] as const);
    tables.push(
      [
        `### ${scenario.name}`,
        "",
        "| layer | CPU µs/request | over the layer above |",
        "| --- | ---: | ---: |",
        ...rows.map(([name, us], i) => {
          // the no-I/O service and the first HTTP layer start anew: nothing above them to subtract;
          // the app with logs or metrics is set against the app without either
          const fresh = i === 0 || name === "OData service, no I/O" || name === "HTTP: hono";
          const app = name.startsWith("HTTP: app") && name !== `HTTP: ${BARE_APP}`;
          const above = app ? rows.find(([n]) => n === `HTTP: ${BARE_APP}`) : rows[i - 1];
          const over = fresh || above === undefined ? "" : `+${(us - above[1]).toFixed(0)}`;
          return `| ${name} | ${us.toFixed(0)} | ${over} |`;
        }),
      ].join("\n"),
    );
  }
} finally {
  await Promise.all([db.close(), tenantSql.reads.end({ timeout: 5 }), tenantSql.writes.end({ timeout: 5 })]);
}
console.log(
  [
    `Layers of the host, ${inFlight} in flight, median of ${rounds} rounds (in process: ${ops} requests per layer; over HTTP: ${slice} s at ${rate} requests/s per layer); ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, load before ${machine.loadAverageBefore.join(" ")}, after ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
    "",
    ...tables.flatMap((t) => [t, ""]),
  ].join("\n"),
);
