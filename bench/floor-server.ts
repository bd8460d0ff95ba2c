/**
 * Child-process entry of a floor: bare Hono on @hono/node-server with hand-written SQL over
 * postgres.js, serving the scenarios' URLs with the same JSON as the host. It does what the host
 * must do and nothing more: one statement per request, prepared statements, a pool of ten like the
 * host's, its point read by key on a cached plan and every other read planned for its values, as
 * the host plans them (`plan_cache_mode`, a pool for each), and JSON
 * built by PostgreSQL and passed through unparsed (flat pages, one row of text), or written in
 * TypeScript from flat joined rows (the expands: the architecture's lesson for PostgreSQL 15; here
 * JSON built by PostgreSQL measured the same within the noise). It has no OData parsing, no model
 * and no token check: those are the host's overhead that the ratio measures. Where the obvious SQL
 * has a slow plan, the floor takes the fast one that gives the same answer for any data, and says
 * why. The tenant is fixed (BENCH_TENANT); each query-mix route answers its one URL
 * (scenarios.ts), with the values of that URL in its SQL as parameters.
 *
 * What it pays around the statement is its kind (FLOOR, settings.ts `FLOORS`): `isolated` pays
 * the host's isolation: the statement goes alone on a connection opened in the application role
 * and holding the tenant, read-only for a read (the states the host's tenant sessions are in once
 * set; a write's one statement goes alone there as the host's does); `transaction` runs every
 * statement in a transaction that sets the role and the tenant, BEGIN, set-up, statement and
 * COMMIT sent together (how the host wrote before its sessions kept the tenant); `bare` sends the
 * statement alone, as the owner; `awaited` runs that transaction waiting for each of its four
 * statements.
 */
import { randomUUID } from "node:crypto";
import postgres from "@bizdata/postgres";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { encodeOption, type QueryMixName, queryMixUrl, READ_ONE_OPTIONS } from "./scenarios.js";
import type { Floor } from "./settings.js";
import { startedAsTheHosts, tenantSessions } from "./tenant-sessions.js";

const tenantId = process.env.BENCH_TENANT!;
const floor = process.env.FLOOR as Floor;
const settings = {
  max: 10,
  prepare: true,
  onnotice: () => {},
  // after five runs of a prepared statement PostgreSQL may switch to one generic plan; for the
  // path filter that plan joins every contact of the tenant to each customer (a nested loop over
  // a materialized scan, 8x slower than the plan for the values). The host plans every run of
  // such a read too, and caches the plans of its reads by key (core's held-sessions.ts): so does
  // the floor, whose point read goes to a pool of its own that leaves plans to PostgreSQL (one
  // scenario at a time is measured, so only one of the two pools is busy at once)
  connection: { plan_cache_mode: "force_custom_plan" },
};
const byKeySettings = { ...settings, connection: { plan_cache_mode: "auto" } };
const pools = {
  forValues: postgres(process.env.DATABASE_URL!, settings),
  byKey: postgres(process.env.DATABASE_URL!, byKeySettings),
};
/** the isolated floor's sessions: role and tenant set when a connection opens, and read-only for reads */
const tenantSql =
  floor === "isolated"
    ? {
        forValues: tenantSessions(process.env.DATABASE_URL!, settings, tenantId),
        byKey: tenantSessions(process.env.DATABASE_URL!, byKeySettings, tenantId),
      }
    : undefined;

/** a statement not yet sent: postgres.js sends a query when it is awaited */
type Rows<T> = PromiseLike<T[]>;
/** where a statement goes: a reserved connection, a transaction or the pool */
type Tx = postgres.Sql<any>;
type Mode = "read only" | "read write";

const setup = (tx: Tx) =>
  tx`SELECT set_config('role', 'bizdata_app', true), set_config('app.tenant_id', ${tenantId}, true)`;

/** a read by key, whose plan may be cached, or any other statement, planned for its values */
type Plans = keyof typeof pools;

/** the statement `fn` makes, run as the floor's kind says */
const inTransaction = async <T>(mode: Mode, fn: (tx: Tx) => Rows<T>, plans: Plans) => {
  const tx = (await pools[plans].reserve()) as unknown as Tx & { release(): void };
  try {
    // a query is sent when awaited: Promise.allSettled hands all four to the connection in order, in one tick
    const sent = [tx.unsafe(mode === "read only" ? "BEGIN READ ONLY" : "BEGIN"), setup(tx), fn(tx), tx`COMMIT`];
    const outcomes = await Promise.allSettled(sent);
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    return (outcomes[2] as PromiseFulfilledResult<T[]>).value;
  } finally {
    tx.release();
  }
};
const floors: Record<Floor, <T>(mode: Mode, fn: (tx: Tx) => Rows<T>, plans: Plans) => Promise<T[]>> = {
  isolated: <T>(mode: Mode, fn: (tx: Tx) => Rows<T>, plans: Plans) =>
    fn(mode === "read only" ? tenantSql![plans].reads : tenantSql![plans].writes) as Promise<T[]>,
  transaction: inTransaction,
  bare: <T>(_: Mode, fn: (tx: Tx) => Rows<T>, plans: Plans) => fn(pools[plans]) as Promise<T[]>,
  awaited: <T>(mode: Mode, fn: (tx: Tx) => Rows<T>, plans: Plans) =>
    pools[plans].begin(mode, async (tx) => {
      await setup(tx as unknown as Tx);
      return fn(tx as unknown as Tx);
    }) as Promise<T[]>,
};
const run = floors[floor];
if (run === undefined) throw new Error(`FLOOR=${floor} is no floor.`);

const read = <T>(fn: (tx: Tx) => Rows<T>) => run("read only", fn, "forValues");
const readByKey = <T>(fn: (tx: Tx) => Rows<T>) => run("read only", fn, "byKey");

const json = (c: Context, body: string) => c.body(body, 200, { "Content-Type": "application/json" });

/** a JSON string, or null */
const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));
/** a numeric column read as text (postgres.js leaves numeric unparsed), written as the JSON number it is */
const num = (s: string | null) => (s === null ? "null" : s);

/** one statement that returns the whole body as text, built by PostgreSQL */
const bodyOf = async (rows: Promise<{ body: string }[]>) => (await rows)[0]!.body;

/** the rows of a statement as arrays of values */
const valuesOf = (query: postgres.PendingQuery<postgres.Row[]>) => query.values() as unknown as Rows<any[]>;

const queryMixRoutes: Record<QueryMixName, (c: Context) => Promise<Response>> = {
  // OData orders nulls first, and a btree index on (tenant_id, sku) holds them last, so a plain
  // `ORDER BY sku NULLS FIRST` sorts every cheap product. The null SKUs first (by Guid), then the
  // rest in index order, keeps the exact order and lets the index stop after a hundred rows.
  "query-filter": async (c) =>
    json(
      c,
      await bodyOf(
        read(
          (tx) => tx<{ body: string }[]>`
          SELECT '{"value":[' || coalesce(string_agg(row_to_json(p)::text, ',' ORDER BY p."SKU" NULLS FIRST, p."Guid"), '')
            || ']}' AS body
          FROM (
            (SELECT guid AS "Guid", sku AS "SKU", sales_description AS "SalesDescription", cost AS "Cost"
             FROM product WHERE tenant_id = ${tenantId} AND cost < ${50} AND sku IS NULL ORDER BY guid LIMIT ${100})
            UNION ALL
            (SELECT guid, sku, sales_description, cost
             FROM product WHERE tenant_id = ${tenantId} AND cost < ${50} AND sku IS NOT NULL
             ORDER BY sku, guid LIMIT ${100})
            LIMIT ${100}) p`,
        ),
      ),
    ),
  // flat joined rows written in TypeScript: the to-one expand is a join, the path filter too
  "query-path-expand": async (c) => {
    const rows = await read((tx) =>
      valuesOf(tx`
        SELECT cu.guid, cu.id, cu.title, co.guid AS contact, co.first_name, co.last_name
        FROM customer cu JOIN contact co ON co.tenant_id = cu.tenant_id AND co.guid = cu.primary_contact_guid
        WHERE cu.tenant_id = ${tenantId} AND co.mailing_address__state = ${"TX"}
        ORDER BY cu.guid LIMIT ${50}`),
    );
    let body = '{"value":[';
    for (let i = 0; i < rows.length; i++) {
      const [guid, id, title, contact, first, last] = rows[i]!;
      if (i > 0) body += ",";
      body += `{"Guid":"${guid}","Id":${str(id)},"Title":${str(title)},"PrimaryContact":{"Guid":"${contact}","FirstName":${str(first)},"LastName":${str(last)}}}`;
    }
    return json(c, `${body}]}`);
  },
  // the page of orders, then its lines and their products as flat rows, nested in TypeScript
  "query-nested-expand": async (c) => {
    const rows = await read((tx) =>
      valuesOf(tx`
        SELECT o.guid, d.guid AS line, d.quantity, d.unit_price, p.guid AS product, p.sku
        FROM (SELECT tenant_id, guid FROM sales_order WHERE tenant_id = ${tenantId} AND status = ${"Open"}
              ORDER BY guid LIMIT ${20}) o
        LEFT JOIN sales_order_detail d ON d.tenant_id = o.tenant_id AND d.sales_order_guid = o.guid
        LEFT JOIN product p ON p.tenant_id = d.tenant_id AND p.guid = d.product_guid
        ORDER BY o.guid, d.guid`),
    );
    let body = '{"value":[';
    let order: string | undefined;
    for (const [guid, line, quantity, price, product, sku] of rows) {
      if (guid !== order) {
        body += `${order === undefined ? "" : "]},"}{"Guid":"${guid}","Details":[`;
        order = guid;
      } else body += ",";
      if (line === null) continue;
      body += `{"Guid":"${line}","Quantity":${num(quantity)},"UnitPrice":${num(price)},"Product":${product === null ? "null" : `{"Guid":"${product}","SKU":${str(sku)}}`}}`;
    }
    return json(c, `${body}${order === undefined ? "" : "]}"}]}`);
  },
  "query-aggregate": async (c) => {
    const [row] = await read(
      (tx) => tx<{ total: string | null }[]>`
        SELECT sum(d.quantity) AS total
        FROM sales_order_detail d JOIN sales_order o ON o.tenant_id = d.tenant_id AND o.guid = d.sales_order_guid
        WHERE d.tenant_id = ${tenantId} AND o.status = ${"Open"}`,
    );
    return json(c, `{"value":[{"Total":${num(row!.total)}}]}`);
  },
  "query-count": async (c) => {
    const [row] = await read(
      (tx) => tx<{ count: string }[]>`SELECT count(*) AS count FROM sales_order WHERE tenant_id = ${tenantId}`,
    );
    return json(c, `{"@odata.count":${row!.count},"value":[]}`);
  },
};

/** the request's path and query exactly as sent, the key the query-mix routes are found by */
const routes = new Map<string, (c: Context) => Promise<Response>>(
  (Object.keys(queryMixRoutes) as QueryMixName[]).map((name) => [queryMixUrl(name), queryMixRoutes[name]]),
);
const pathAndQuery = (c: Context) => {
  const url = c.req.url;
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
};

const KEY_PATH = /^\/api\/Product\(([0-9a-fA-F-]{36})\)$/;
const READ_ONE_QUERY = READ_ONE_OPTIONS.map(([name, value]) => `${name}=${encodeOption(value)}`).join("&");

const app = new Hono()
  .get("/api/*", async (c) => {
    const route = routes.get(pathAndQuery(c));
    if (route !== undefined) return route(c);
    const key = KEY_PATH.exec(c.req.path)?.[1];
    if (key !== undefined) {
      if (!c.req.url.endsWith(`?${READ_ONE_QUERY}`)) return c.notFound();
      const [row] = await readByKey(
        (tx) => tx<{ body: string }[]>`
          SELECT row_to_json(p)::text AS body FROM (
            SELECT guid AS "Guid", sku AS "SKU", cost AS "Cost"
            FROM product WHERE tenant_id = ${tenantId} AND guid = ${key.toLowerCase()}::uuid) p`,
      );
      if (row === undefined) return c.json({ error: { code: "NotFound", message: "No such product." } }, 404);
      return json(c, row.body);
    }
    if (c.req.path !== "/api/Product") return c.notFound();
    const top = Number(c.req.query("$top") ?? 100);
    const body = await bodyOf(
      read(
        (tx) => tx<{ body: string }[]>`
        SELECT '{"value":[' || coalesce(string_agg(row_to_json(p)::text, ',' ORDER BY p."Guid"), '') || ']}' AS body
        FROM (
          SELECT guid AS "Guid", sku AS "SKU", sales_description AS "SalesDescription", cost AS "Cost"
          FROM product WHERE tenant_id = ${tenantId} ORDER BY guid LIMIT ${top}) p`,
      ),
    );
    return json(c, body);
  })
  .post("/api/Product", async (c) => {
    const body = await c.req.json<{ SKU: string; SalesDescription?: string | null; Cost?: number | null }>();
    const guid = randomUUID();
    const description = body.SalesDescription ?? null;
    // an insert's plan never depends on its values: PostgreSQL may cache it, as the host's writes
    await run(
      "read write",
      (tx) => tx`
        INSERT INTO product (tenant_id, guid, title, sku, sales_description, cost, price)
        VALUES (${tenantId}, ${guid}, ${description ?? body.SKU}, ${body.SKU}, ${description}, ${body.Cost ?? null}, NULL)`,
      "byKey",
    );
    return c.json({ Guid: guid }, 201, { Location: `/api/Product(${guid})` });
  });

// the pools the floor's statements go to: the isolated floor's sessions, or the owner's pools
const allPools = tenantSql
  ? [tenantSql.forValues.reads, tenantSql.forValues.writes, tenantSql.byKey.reads, tenantSql.byKey.writes]
  : [pools.forValues, pools.byKey];
await Promise.all(allPools.map((pool) => startedAsTheHosts(pool, settings.max)));

const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send?.({ url: `http://127.0.0.1:${info.port}` });
});
process.on("disconnect", () =>
  server.close(() => void Promise.all(allPools.map((pool) => pool.end({ timeout: 5 }))).then(() => process.exit(0))),
);
