/**
 * The import part of `pnpm bench` (issue "Writes"): the generator's sales orders with their
 * lines, written through the host's API into tenant `bench-import` two ways, with the same
 * concurrency (BENCH_IMPORT_CONNECTIONS, default 4) and a simple worker pool over fetch:
 *
 * - `$batch`: `POST /api/$batch` with 64 creates a request, all in one changeset;
 * - single: one `POST /api/SalesOrder` per order.
 *
 * The two take turns in (at least) four rounds, each round a slice of the orders, the first way
 * alternating, so a busy spell of the shared machine meets both; each way's orders/s is its
 * orders over its rounds' time summed.
 *
 * Every order refers by natural key (SellToCustomer by customer Id, PriceLevel by Name,
 * Details[].Product by SKU) and leaves pricing and totals to the business logic, which runs on
 * every write. Every response must be 2xx and afterwards the tenant must hold exactly the orders
 * and lines sent, priced and totalled; otherwise the run fails.
 *
 * The tenant gets the full sample catalog (products, customers, price levels) once, by bulk
 * seeding; only orders go through the API. Its orders are deleted before and after the part, so
 * every import starts from an empty order table (what a fresh tenant has) and the read scenarios
 * of the next run do not see them.
 *
 * Statements per batch are counted in this process: the host's `createApp` over a database that
 * records every statement (packages/test-kit/src/recording-database.ts) takes one changeset of 64 orders with one
 * line each and one with five, and, for comparison, the same 64 five-line orders as single POSTs.
 */
import { columnOf, type Database, inTenant, openDatabase, tableName } from "@bizdata/core";
import { defaultSampleSizes, generateSampleData, sampleModel, seedSampleData } from "@bizdata/examples";
import {
  adminContext,
  createApp,
  createTenant,
  loadConfig,
  loadSigningKeys,
  migrateService,
  setFeature,
  setUser,
} from "@bizdata/host";
import { recording } from "@bizdata/test-kit/recording-database";
import { cpuDuring } from "./process-cpu.js";

/** the name BENCH_ONLY knows this part by */
export const IMPORT_PART = "import";

export const importTenant = { id: "bench-import", username: "bench", password: "bench" } as const;

/** creates per `$batch` request, one changeset each */
export const IMPORT_BATCH_SIZE = 64;

/** the catalog the orders refer to: the default sample sizes, whatever BENCH_SCALE says */
const catalog = {
  countries: defaultSampleSizes.countries,
  products: defaultSampleSizes.products,
  customers: defaultSampleSizes.customers,
  priceLevels: defaultSampleSizes.priceLevels,
} as const;

/** the body of `POST /api/SalesOrder`: natural keys only, no prices (business logic sets them) */
export interface OrderBody {
  DocNumber: string;
  Description: unknown;
  OrderDate: unknown;
  Status: unknown;
  SellToCustomer: string;
  PriceLevel?: string;
  Details: { LineNumber: unknown; Product: string; Quantity: unknown }[];
}

/**
 * `count` orders as the generator makes them (same seed as the seeded catalog), with every
 * reference turned from a Guid into the natural key of the record it points at.
 */
export function importOrders(count: number): OrderBody[] {
  const keys = new Map<string, string>();
  const orders: Record<string, unknown>[] = [];
  const lines = new Map<string, Record<string, unknown>[]>();
  for (const { entity, records } of generateSampleData({ ...catalog, orders: count, invoices: 0, journals: 0 })) {
    const key = ({ Product: "SKU", Customer: "Id", PriceLevel: "Name" } as const)[entity as string];
    if (key !== undefined) for (const r of records) keys.set(r.Guid as string, r[key] as string);
    else if (entity === "SalesOrder") orders.push(...records);
    else if (entity === "SalesOrderDetail")
      for (const r of records) {
        const list = lines.get(r.SalesOrder as string) ?? [];
        list.push(r);
        lines.set(r.SalesOrder as string, list);
      }
  }
  const keyOf = (guid: unknown) => {
    const key = keys.get(guid as string);
    if (key === undefined) throw new Error(`the generator referred to ${String(guid)}, which is no catalog record`);
    return key;
  };
  return orders.map((o) => ({
    DocNumber: o.DocNumber as string,
    Description: o.Description,
    OrderDate: o.OrderDate,
    Status: o.Status,
    SellToCustomer: keyOf(o.SellToCustomer),
    ...(o.PriceLevel === null ? {} : { PriceLevel: keyOf(o.PriceLevel) }),
    Details: (lines.get(o.Guid as string) ?? []).map((l) => ({
      LineNumber: l.LineNumber,
      Product: keyOf(l.Product),
      Quantity: l.Quantity,
    })),
  }));
}

export const withPrefix = (prefix: string, orders: readonly OrderBody[]): OrderBody[] =>
  orders.map((o) => ({ ...o, DocNumber: `${prefix}${o.DocNumber}` }));

const batchBody = (orders: readonly OrderBody[]) =>
  JSON.stringify({
    requests: orders.map((body, i) => ({
      id: String(i + 1),
      atomicityGroup: "g",
      method: "POST",
      url: "SalesOrder",
      body,
    })),
  });

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** the tables of the orders, and the columns the checks read */
const orderTables = () => {
  const order = sampleModel.entity("SalesOrder")!;
  const detail = sampleModel.entity("SalesOrderDetail")!;
  const column = (entity: typeof order, name: string) => columnOf(entity, [name])!.column;
  return {
    order: tableName(order),
    detail: tableName(detail),
    docNumber: column(order, "DocNumber"),
    total: column(order, "TotalPrice"),
    owner: column(detail, "SalesOrder"),
    quantity: column(detail, "Quantity"),
    unitPrice: column(detail, "UnitPrice"),
  };
};

/** deletes the tenant's orders (their lines go with them: ON DELETE CASCADE) */
export async function deleteOrders(db: Database): Promise<number> {
  const t = orderTables();
  const [row] = await inTenant(db, importTenant.id, (tx) =>
    tx.query<{ n: string }>({
      sql: `WITH d AS (DELETE FROM ${t.order} WHERE tenant_id = $1 RETURNING 1) SELECT count(*) AS n FROM d`,
      params: [importTenant.id],
    }),
  );
  return Number(row?.n ?? 0);
}

/**
 * Tenant `bench-import` with a user, the features the order logic is gated by, the catalog
 * (seeded once) and no orders.
 */
export async function prepareImport(databaseUrl: string): Promise<void> {
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  try {
    await migrateService(db, sampleModel);
    await createTenant(db, importTenant.id, "Import benchmark");
    await setUser(db, importTenant.id, importTenant.username, importTenant.password, ["admin"]);
    // lines priced at the order's price level, a credit check on every order: the whole logic
    for (const feature of ["PriceLevels", "CreditCheck"]) await setFeature(db, importTenant.id, feature, true);
    const seeded = await seedSampleData(adminContext(db, sampleModel), importTenant.id, {
      ...catalog,
      orders: 0,
      invoices: 0,
      journals: 0,
    });
    if (seeded.seeded) console.log(`seeded ${seeded.records} catalog records into tenant ${importTenant.id}`);
    // statistics from before the last import say the tenant has no lines: the cascade's plan would
    // then scan all of its lines once per order deleted
    const t = orderTables();
    await db.query({ sql: `ANALYZE ${t.order}, ${t.detail}`, params: [] });
    const removed = await deleteOrders(db);
    if (removed > 0) console.error(`removed ${removed} orders of an earlier import`);
    await db.query({ sql: `VACUUM (ANALYZE) ${t.order}, ${t.detail}`, params: [] });
  } finally {
    await db.close();
  }
}

export interface ImportRun {
  readonly requests: number;
  readonly orders: number;
  /** orders and their lines */
  readonly records: number;
  readonly seconds: number;
  readonly ordersPerSecond: number;
  readonly recordsPerSecond: number;
  /** per HTTP request */
  readonly p50: number;
  readonly p99: number;
  /**
   * CPU microseconds per order of the host's process, of the PostgreSQL server and of this
   * process, which sends the requests (undefined without /proc): which of them a way is bound by
   */
  readonly cpuPerOrder: {
    readonly host: number | undefined;
    readonly postgres: number | undefined;
    readonly client: number | undefined;
  };
}

export interface StatementCount {
  readonly label: string;
  readonly orders: number;
  readonly linesPerOrder: number;
  readonly requests: number;
  /** reference values in the bodies, and how many distinct ones */
  readonly references: { readonly total: number; readonly distinct: number };
  /** every statement but BEGIN/COMMIT and each transaction's role/tenant set-up */
  readonly statements: number;
  /** natural-key lookups: statements containing `::text = ANY(` */
  readonly lookups: number;
  readonly inserts: number;
  /** SELECTs but the lookups: the reads of business logic (`read(…)` in hooks) and any others */
  readonly selects: number;
  readonly other: number;
  /** the distinct statement texts with how often each ran, most frequent first */
  readonly texts: readonly { readonly count: number; readonly sql: string }[];
}

export interface ImportResult {
  readonly orders: number;
  readonly linesPerOrder: number;
  readonly connections: number;
  readonly batchSize: number;
  readonly batch: ImportRun;
  readonly single: ImportRun;
  /** batch orders/s over single orders/s */
  readonly ratio: number;
  readonly statements: readonly StatementCount[];
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** sends every request with `connections` in flight; the first failure stops the pool and throws */
export async function pool(
  requests: readonly (() => Promise<void>)[],
  connections: number,
): Promise<{ seconds: number; latencies: number[]; cpu?: Cpu }> {
  let next = 0;
  let failure: unknown;
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(connections, requests.length) }, async () => {
      while (failure === undefined && next < requests.length) {
        const request = requests[next++]!;
        const sent = performance.now();
        try {
          await request();
        } catch (error) {
          failure ??= error;
          return;
        }
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  if (failure !== undefined) throw failure;
  return { seconds, latencies: latencies.sort((a, b) => a - b) };
}

export type Measured = Awaited<ReturnType<typeof pool>>;

/** CPU seconds spent during a measurement: the host's process, PostgreSQL's and this process's */
interface Cpu {
  readonly host: number | undefined;
  readonly postgres: number | undefined;
  readonly client: number;
}

/** `pool` with the CPU the host's process (`hostPid`), PostgreSQL and this process spent meanwhile */
export async function measuredPool(
  hostPid: number | undefined,
  requests: readonly (() => Promise<void>)[],
  connections: number,
): Promise<Measured> {
  const client = process.cpuUsage();
  const { result, seconds, postgresSeconds } = await cpuDuring(hostPid, () => pool(requests, connections), {
    postgres: true,
  });
  const used = process.cpuUsage(client);
  return { ...result, cpu: { host: seconds, postgres: postgresSeconds, client: (used.user + used.system) / 1e6 } };
}

/** the rounds of the measurement: slices of whole batches, at least 4 rounds when there are orders for them */
export function roundsOf(orders: number): [number, number][] {
  const batches = Math.ceil(orders / IMPORT_BATCH_SIZE);
  const perRound = Math.max(1, Math.ceil(batches / 4)) * IMPORT_BATCH_SIZE;
  const rounds: [number, number][] = [];
  for (let from = 0; from < orders; from += perRound) rounds.push([from, Math.min(orders, from + perRound)]);
  return rounds;
}

/** the rounds of one way as one measurement: their time and CPU summed, their latencies together */
export const combined = (rounds: readonly Measured[]): Measured => {
  const total = (figure: (cpu: Cpu) => number | undefined) =>
    rounds.some((r) => r.cpu === undefined || figure(r.cpu) === undefined)
      ? undefined
      : rounds.reduce((sum, r) => sum + figure(r.cpu!)!, 0);
  return {
    seconds: rounds.reduce((sum, r) => sum + r.seconds, 0),
    latencies: rounds.flatMap((r) => r.latencies).sort((a, b) => a - b),
    cpu: { host: total((c) => c.host), postgres: total((c) => c.postgres), client: total((c) => c.client) ?? 0 },
  };
};

export interface Client {
  readonly url: string;
  readonly token: string;
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** throws unless the answer, and for `$batch` every part of it, is 2xx */
function expect2xx(path: string, status: number, text: string): void {
  if (!is2xx(status)) throw new Error(`POST ${path} → ${status} ${text.slice(0, 2000)}`);
  if (!path.endsWith("$batch")) return;
  const { responses } = JSON.parse(text) as { responses: { id: string; status: number; body?: unknown }[] };
  // the part that failed, not the ones its changeset's rollback answered 424
  const failed = responses.find((r) => !is2xx(r.status) && r.status !== 424) ?? responses.find((r) => !is2xx(r.status));
  if (failed) throw new Error(`$batch part ${failed.id} → ${failed.status} ${JSON.stringify(failed.body)}`);
}

async function post(client: Client, path: string, body: string): Promise<void> {
  const response = await fetch(client.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${client.token}`, "content-type": "application/json" },
    body,
  });
  expect2xx(path, response.status, await response.text());
}

export const batchRequests = (client: Client, orders: readonly OrderBody[]) =>
  chunks(orders, IMPORT_BATCH_SIZE)
    .map(batchBody)
    .map((body) => () => post(client, "/api/$batch", body));

const singleRequests = (client: Client, orders: readonly OrderBody[]) =>
  orders.map((o) => JSON.stringify(o)).map((body) => () => post(client, "/api/SalesOrder", body));

export function summarize(orders: readonly OrderBody[], measured: Measured): ImportRun {
  const lines = orders.reduce((n, o) => n + o.Details.length, 0);
  const perOrder = (seconds: number | undefined) =>
    seconds === undefined ? undefined : (seconds * 1e6) / orders.length;
  return {
    // every request sent left its latency (pool throws on a failed one)
    requests: measured.latencies.length,
    orders: orders.length,
    records: orders.length + lines,
    seconds: measured.seconds,
    ordersPerSecond: orders.length / measured.seconds,
    recordsPerSecond: (orders.length + lines) / measured.seconds,
    p50: percentile(measured.latencies, 50),
    p99: percentile(measured.latencies, 99),
    cpuPerOrder: {
      host: perOrder(measured.cpu?.host),
      postgres: perOrder(measured.cpu?.postgres),
      client: perOrder(measured.cpu?.client),
    },
  };
}

/**
 * The tenant must hold exactly the orders and lines sent under `prefix`, every line priced and
 * every order's total its lines' sum: proof that the writes happened with their business logic.
 */
export async function check(db: Database, prefix: string, sent: readonly OrderBody[]): Promise<void> {
  const t = orderTables();
  const [row] = await inTenant(db, importTenant.id, (tx) =>
    tx.query<{ orders: string; lines: string; unpriced: string; mistotalled: string }>({
      sql: `SELECT count(*) AS orders, coalesce(sum(l.n), 0) AS lines,
                   coalesce(sum(l.unpriced), 0) AS unpriced,
                   count(*) FILTER (WHERE abs(o.${t.total} - coalesce(l.amount, 0)) > 0.01) AS mistotalled
            FROM ${t.order} o
            LEFT JOIN LATERAL (
              SELECT count(*) AS n, count(*) FILTER (WHERE d.${t.unitPrice} IS NULL) AS unpriced,
                     sum(d.${t.quantity} * d.${t.unitPrice}) AS amount
              FROM ${t.detail} d WHERE d.tenant_id = o.tenant_id AND d.${t.owner} = o.guid
            ) l ON true
            WHERE o.tenant_id = $1 AND starts_with(o.${t.docNumber}, $2)`,
      params: [importTenant.id, prefix],
    }),
  );
  const lines = sent.reduce((n, o) => n + o.Details.length, 0);
  const found = { orders: Number(row?.orders), lines: Number(row?.lines) };
  if (found.orders !== sent.length || found.lines !== lines)
    throw new Error(
      `import ${prefix}: sent ${sent.length} orders with ${lines} lines, the tenant holds ${found.orders} with ${found.lines}`,
    );
  if (Number(row?.unpriced) > 0 || Number(row?.mistotalled) > 0)
    throw new Error(
      `import ${prefix}: ${row?.unpriced} lines without a price, ${row?.mistotalled} orders whose total is not their lines' sum`,
    );
}

/** what `log` holds, sorted into kinds */
function countLog(label: string, sample: readonly OrderBody[], requests: number, log: readonly string[]) {
  const refs = sample.flatMap((o) => [
    `Customer:${o.SellToCustomer}`,
    ...(o.PriceLevel === undefined ? [] : [`PriceLevel:${o.PriceLevel}`]),
    ...o.Details.map((d) => `Product:${d.Product}`),
  ]);
  const texts = new Map<string, number>();
  for (const sql of log) texts.set(sql, (texts.get(sql) ?? 0) + 1);
  const isLookup = (sql: string) => sql.includes("::text = ANY(");
  const starts = (word: string, sql: string) => sql.trimStart().toUpperCase().startsWith(word);
  const lookups = log.filter(isLookup).length;
  // an insert goes with its change log rows (WITH r AS (INSERT …) INSERT INTO bizdata_change …)
  const inserts = log.filter((sql) => starts("INSERT", sql) || starts("WITH R AS (INSERT", sql)).length;
  const selects = log.filter((sql) => starts("SELECT", sql) && !isLookup(sql)).length;
  return {
    label,
    orders: sample.length,
    linesPerOrder: sample[0]?.Details.length ?? 0,
    requests,
    references: { total: refs.length, distinct: new Set(refs).size },
    statements: log.length,
    lookups,
    inserts,
    selects,
    other: log.length - lookups - inserts - selects,
    texts: [...texts]
      .map(([sql, count]) => ({ count, sql: sql.replace(/\s+/g, " ").trim() }))
      .sort((a, b) => b.count - a.count),
  };
}

/**
 * Statements of one changeset of 64 orders with 1 line each, one with 5 lines each, and the same
 * 64 five-line orders as single POSTs, through the host's app in this process over a database
 * that records what it runs.
 */
async function countStatements(databaseUrl: string, orders: readonly OrderBody[], runId: string) {
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  try {
    const log: string[] = [];
    const config = loadConfig({ LOG_LEVEL: "silent" });
    const app = createApp({ db: recording(db, log), model: sampleModel, keys: await loadSigningKeys(db), config });
    const signin = await app.request("/api/auth/signin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        TenantId: importTenant.id,
        Username: importTenant.username,
        Password: importTenant.password,
      }),
    });
    if (!signin.ok) throw new Error(`sign-in failed: ${signin.status} ${await signin.text()}`);
    const { access_token: token } = (await signin.json()) as { access_token: string };
    const send = async (path: string, body: string) => {
      const response = await app.request(path, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      expect2xx(path, response.status, await response.text());
    };
    const count = async (
      label: string,
      sample: readonly OrderBody[],
      requests: readonly (readonly [string, string])[],
    ) => {
      log.length = 0;
      for (const [path, body] of requests) await send(path, body);
      return countLog(label, sample, requests.length, log);
    };
    // the tenant's features are cached for a few seconds, as in a running import: fill the cache
    await send("/api/$batch", batchBody(withPrefix(`RW-${runId}-`, orders.slice(0, 2))));
    const oneLine = withPrefix(`R1-${runId}-`, orders.slice(0, IMPORT_BATCH_SIZE)).map((o) => ({
      ...o,
      Details: o.Details.slice(0, 1),
    }));
    const fiveLines = withPrefix(`R5-${runId}-`, orders.slice(IMPORT_BATCH_SIZE, 2 * IMPORT_BATCH_SIZE));
    const singles = withPrefix(`RS-${runId}-`, orders.slice(IMPORT_BATCH_SIZE, 2 * IMPORT_BATCH_SIZE));
    return [
      await count(`$batch: 1 changeset of ${oneLine.length} orders × 1 line`, oneLine, [
        ["/api/$batch", batchBody(oneLine)],
      ]),
      await count(`$batch: 1 changeset of ${fiveLines.length} orders × 5 lines`, fiveLines, [
        ["/api/$batch", batchBody(fiveLines)],
      ]),
      await count(
        `single: ${singles.length} POSTs of 1 order × 5 lines`,
        singles,
        singles.map((o) => ["/api/SalesOrder", JSON.stringify(o)] as const),
      ),
    ];
  } finally {
    await db.close();
  }
}

/**
 * Imports `count` orders both ways into the host at `url` (a warm-up of both first), checks what
 * the tenant holds, counts statements per batch, and deletes the orders again.
 */
export async function runImport(
  url: string,
  hostPid: number | undefined,
  token: string,
  databaseUrl: string,
  count: number,
  connections: number,
  log: (line: string) => void = console.error,
): Promise<ImportResult> {
  const runId = Date.now().toString(36);
  const orders = importOrders(Math.max(count, 2 * IMPORT_BATCH_SIZE));
  const measured = orders.slice(0, count);
  const client: Client = { url, token };
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  try {
    // JIT, prepared statements, the features cache: not part of either measurement
    const warm = orders.slice(0, 2 * IMPORT_BATCH_SIZE);
    log("import: warm-up…");
    await pool(batchRequests(client, withPrefix(`WB-${runId}-`, warm)), connections);
    await pool(singleRequests(client, withPrefix(`WS-${runId}-`, warm)), connections);

    // in rounds that alternate which way goes first, so that both meet the same load of this
    // shared machine (one way after the other lets a busy minute decide the ratio)
    const viaBatch = withPrefix(`B-${runId}-`, measured);
    const viaSingle = withPrefix(`S-${runId}-`, measured);
    const rounds = roundsOf(measured.length);
    log(`import: ${measured.length} orders each way, in ${rounds.length} alternating rounds…`);
    const timed = { batch: [] as Measured[], single: [] as Measured[] };
    for (const [i, [from, to]] of rounds.entries()) {
      const ways = [
        async () =>
          timed.batch.push(await measuredPool(hostPid, batchRequests(client, viaBatch.slice(from, to)), connections)),
        async () =>
          timed.single.push(
            await measuredPool(hostPid, singleRequests(client, viaSingle.slice(from, to)), connections),
          ),
      ];
      for (const way of i % 2 === 0 ? ways : ways.reverse()) await way();
    }
    const batch = summarize(viaBatch, combined(timed.batch));
    const single = summarize(viaSingle, combined(timed.single));
    await check(db, `B-${runId}-`, viaBatch);
    await check(db, `S-${runId}-`, viaSingle);

    log("import: statements per batch…");
    const statements = await countStatements(databaseUrl, orders, runId);
    return {
      orders: measured.length,
      linesPerOrder: measured[0]?.Details.length ?? 0,
      connections,
      batchSize: IMPORT_BATCH_SIZE,
      batch,
      single,
      ratio: batch.ordersPerSecond / single.ordersPerSecond,
      statements,
    };
  } finally {
    // the next run's reads must not see them, and its import starts empty
    await deleteOrders(db).catch(() => undefined);
    await db.close();
  }
}
