/**
 * `pnpm bench:tenant-keys`: what the tenant column's type costs PostgreSQL. Every key, index,
 * join, foreign key and row-level-security policy of the host's tables compares `tenant_id`, a
 * text; this measures the same statements over copies of the bench tenant's products, customers,
 * contacts, orders and lines whose tenant column is:
 * - `text`: text in the database's own collation, as migrate declared it before it declared
 *   `COLLATE "C"` (tables made then keep it);
 * - `text-c`: text with `COLLATE "C"` (compared byte by byte whatever the database's collation),
 *   as migrate declares it now (core's tenant-column.ts);
 * - `text-icu`: text with ICU's `en-US` collation, what a database created with that locale gives
 *   every text column (left out where PostgreSQL has no ICU);
 * - `integer`: a compact internal key, what a tenant id mapped once per request would be.
 * The text variants hold a tenant id of 26 characters (`acme-manufacturing-eu-west`), longer than
 * the bench tenant's: a comparison's cost grows with it. Each copy has the host's primary key,
 * indexes, foreign keys and row-level security, in a schema of its own (dropped at the end).
 *
 * Each statement runs on sessions opened as the host's tenant sessions are (bench/tenant-sessions.ts:
 * the application role, the tenant set, reads planned for their values), TENANT_KEYS_CONNECTIONS
 * (default 10) in flight, for TENANT_KEYS_SLICE seconds (default 3) per variant, the variants
 * taking turns in rotating order for TENANT_KEYS_ROUNDS rounds (default 3). Reported: PostgreSQL's
 * CPU per statement (all its processes, from /proc), the median of the rounds, and each variant's
 * against `text`.
 */
import postgres from "@bizdata/postgres";
import { median } from "./median.js";
import { benchTenant, prepareDatabase } from "./prepare.js";
import { cpuDuring } from "./process-cpu.js";
import { describeMachine } from "./report.js";
import { loadSettings, wholeSetting } from "./settings.js";
import { startedAsTheHosts, tenantSessions } from "./tenant-sessions.js";

const rounds = wholeSetting("TENANT_KEYS_ROUNDS", 3);
const slice = wholeSetting("TENANT_KEYS_SLICE", 3);
const inFlight = wholeSetting("TENANT_KEYS_CONNECTIONS", 10);

const TABLES = ["product", "customer", "contact", "sales_order", "sales_order_detail"] as const;
/** the foreign keys between the copied tables, as the host declares them */
const FOREIGN_KEYS = [
  ["customer", "primary_contact_guid", "contact", ""],
  ["sales_order", "sell_to_customer_guid", "customer", ""],
  ["sales_order_detail", "sales_order_guid", "sales_order", " ON DELETE CASCADE"],
  ["sales_order_detail", "product_guid", "product", ""],
] as const;
const LONG_TENANT = "acme-manufacturing-eu-west";

interface Variant {
  readonly name: string;
  /** the tenant column's type */
  readonly type: string;
  readonly tenant: string;
}
const VARIANTS: readonly Variant[] = [
  { name: "text", type: "text", tenant: LONG_TENANT },
  { name: "text-c", type: 'text COLLATE "C"', tenant: LONG_TENANT },
  { name: "text-icu", type: 'text COLLATE "en-US-x-icu"', tenant: LONG_TENANT },
  { name: "integer", type: "integer", tenant: "1" },
];
const schemaOf = (v: Variant) => `bench_keys_${v.name.replace("-", "_")}`;

/** the statements, `$1` the tenant; a point read's and an insert's keys come from the data */
interface Keys {
  readonly product: string[];
  readonly order: string;
}
const STATEMENTS: readonly {
  readonly name: string;
  readonly write?: boolean;
  readonly sql: string;
  readonly params?: (keys: Keys, i: number) => unknown[];
}[] = [
  {
    name: "point read",
    sql: "SELECT guid, sku, cost FROM product WHERE tenant_id = $1 AND guid = $2",
    params: (k, i) => [k.product[i % k.product.length]],
  },
  {
    name: "page of 100",
    sql: "SELECT guid, sku, sales_description, cost FROM product WHERE tenant_id = $1 ORDER BY guid LIMIT 100",
  },
  {
    name: "filter + order",
    sql: "SELECT guid, sku, sales_description, cost FROM product WHERE tenant_id = $1 AND cost < 50 ORDER BY sku NULLS FIRST, guid LIMIT 100",
  },
  {
    name: "path filter + join",
    sql: `SELECT cu.guid, cu.id, co.first_name FROM customer cu JOIN contact co ON co.tenant_id = cu.tenant_id AND co.guid = cu.primary_contact_guid
          WHERE cu.tenant_id = $1 AND co.mailing_address__state = 'TX' ORDER BY cu.guid LIMIT 50`,
  },
  {
    name: "2-level join",
    sql: `SELECT o.guid, d.guid, d.quantity, p.sku
          FROM (SELECT tenant_id, guid FROM sales_order WHERE tenant_id = $1 AND status = 'Open' ORDER BY guid LIMIT 20) o
          LEFT JOIN sales_order_detail d ON d.tenant_id = o.tenant_id AND d.sales_order_guid = o.guid
          LEFT JOIN product p ON p.tenant_id = d.tenant_id AND p.guid = d.product_guid ORDER BY o.guid, d.guid`,
  },
  {
    name: "aggregate over a join",
    sql: `SELECT sum(d.quantity) FROM sales_order_detail d JOIN sales_order o ON o.tenant_id = d.tenant_id AND o.guid = d.sales_order_guid
          WHERE d.tenant_id = $1 AND o.status = 'Open'`,
  },
  { name: "count", sql: "SELECT count(*) FROM sales_order WHERE tenant_id = $1" },
  {
    name: "insert, 2 foreign keys",
    write: true,
    sql: `INSERT INTO sales_order_detail (tenant_id, guid, sales_order_guid, product_guid, line_number, quantity, unit_price)
          VALUES ($1, gen_random_uuid(), $2, $3, 99, 1, 2)`,
    params: (k, i) => [k.order, k.product[i % k.product.length]],
  },
];

const settings = loadSettings();
const machine = describeMachine();
const { databaseUrl } = await prepareDatabase(settings.databaseUrl, 1);
const owner = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const id = (name: string) => owner(name);

/** a copy of the bench tenant's tables in the variant's schema, its tenant column of the variant's type */
async function copyTables(v: Variant) {
  const schema = schemaOf(v);
  await owner`DROP SCHEMA IF EXISTS ${id(schema)} CASCADE`;
  await owner`CREATE SCHEMA ${id(schema)}`;
  await owner`GRANT USAGE ON SCHEMA ${id(schema)} TO bizdata_app`;
  for (const table of TABLES) {
    const target = owner`${id(schema)}.${id(table)}`;
    // the other columns, each quoted by PostgreSQL
    const [found] = await owner<
      { list: string }[]
    >`SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS list
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} AND column_name <> 'tenant_id'`;
    const columns = owner.unsafe(found!.list);
    await owner`CREATE TABLE ${target} (LIKE ${id(table)} INCLUDING ALL)`;
    // the type is one of VARIANTS' own: no value of a request's reaches this text. The copy is still empty
    await owner`ALTER TABLE ${target} ALTER COLUMN tenant_id TYPE ${owner.unsafe(v.type)} USING NULL`;
    await owner`INSERT INTO ${target} (tenant_id, ${columns})
      SELECT ${v.tenant}::${owner.unsafe(v.type)}, ${columns} FROM ${id(table)} WHERE tenant_id = ${benchTenant.id}`;
    await owner`GRANT SELECT, INSERT, UPDATE, DELETE ON ${target} TO bizdata_app`;
    await owner`ALTER TABLE ${target} ENABLE ROW LEVEL SECURITY`;
    await owner`ALTER TABLE ${target} FORCE ROW LEVEL SECURITY`;
    const own = owner.unsafe(`(tenant_id = current_setting('app.tenant_id', true)::${v.type})`);
    await owner`CREATE POLICY tenant ON ${target} TO bizdata_app USING ${own} WITH CHECK ${own}`;
  }
  for (const [table, column, target, action] of FOREIGN_KEYS)
    await owner`ALTER TABLE ${id(schema)}.${id(table)} ADD FOREIGN KEY (tenant_id, ${id(column)})
      REFERENCES ${id(schema)}.${id(target)} (tenant_id, guid)${owner.unsafe(action)}`;
  for (const table of TABLES) await owner`ANALYZE ${id(schema)}.${id(table)}`;
}

const hasIcu = (await owner`SELECT 1 FROM pg_collation WHERE collname = 'en-US-x-icu'`).length > 0;
const variants = VARIANTS.filter((v) => hasIcu || v.name !== "text-icu");
const keys: Keys = {
  product: (
    await owner<
      { guid: string }[]
    >`SELECT guid::text FROM product WHERE tenant_id = ${benchTenant.id} ORDER BY guid LIMIT 1000`
  ).map((r) => r.guid),
  order: (
    await owner<{ guid: string }[]>`SELECT guid::text FROM sales_order WHERE tenant_id = ${benchTenant.id} LIMIT 1`
  )[0]!.guid,
};
const sessions = new Map<string, ReturnType<typeof tenantSessions>>();
try {
  for (const v of variants) {
    console.log(`copying the bench tenant's tables for ${v.name}`);
    await copyTables(v);
    const pools = tenantSessions(
      databaseUrl,
      {
        max: inFlight,
        prepare: true,
        onnotice: () => {},
        connection: { search_path: schemaOf(v), plan_cache_mode: "force_custom_plan" },
      },
      v.tenant,
    );
    for (const pool of [pools.reads, pools.writes]) await startedAsTheHosts(pool, inFlight);
    sessions.set(v.name, pools);
  }

  /** statements answered in `seconds`, `inFlight` at a time */
  const load = async (v: Variant, s: (typeof STATEMENTS)[number], seconds: number) => {
    const pools = sessions.get(v.name)!;
    const pool = s.write ? pools.writes : pools.reads;
    const end = performance.now() + seconds * 1000;
    let sent = 0;
    const loop = async () => {
      while (performance.now() < end) {
        const i = sent++;
        await pool.unsafe(s.sql, [v.tenant, ...(s.params?.(keys, i) ?? [])] as never[], { prepare: true });
      }
    };
    await Promise.all(Array.from({ length: inFlight }, loop));
    return sent;
  };

  const rows: string[] = [];
  for (const s of STATEMENTS) {
    const cpu = new Map<string, number[]>();
    const rate = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      console.log(`${s.name}: round ${round + 1} of ${rounds}`);
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(k + round) % variants.length]!;
        await load(v, s, 0.5);
        const { result: answered, postgresSeconds } = await cpuDuring(undefined, () => load(v, s, slice), {
          postgres: true,
        });
        if (postgresSeconds === undefined)
          throw new Error("bench:tenant-keys reads PostgreSQL's CPU from /proc: run it where PostgreSQL runs.");
        cpu.set(v.name, [...(cpu.get(v.name) ?? []), (postgresSeconds * 1e6) / answered]);
        rate.set(v.name, [...(rate.get(v.name) ?? []), answered / slice]);
      }
    }
    const base = median(cpu.get("text")!);
    const cells = variants.map((v) => {
      const us = median(cpu.get(v.name)!);
      return v.name === "text"
        ? `${us.toFixed(0)} (${median(rate.get(v.name)!).toFixed(0)}/s)`
        : (us / base).toFixed(2);
    });
    rows.push(`| ${s.name} | ${cells.join(" | ")} |`);
  }
  console.log(
    `\nPostgreSQL CPU per statement by the tenant column's type, ${inFlight} in flight, median of ${rounds} rounds of ${slice} s per variant, ` +
      `the variants taking turns; ${machine.cores} cores (${machine.cpu}), load before ${machine.loadAverageBefore.join(" ")}\n`,
  );
  console.log(
    `| statement | text: µs (statements/s) | ${variants
      .slice(1)
      .map((v) => `${v.name}/text`)
      .join(" | ")} |`,
  );
  console.log(`| --- | ${variants.map(() => "---:").join(" | ")} |`);
  for (const row of rows) console.log(row);
} finally {
  await Promise.all([...sessions.values()].flatMap((p) => [p.reads.end(), p.writes.end()]));
  for (const v of variants) await owner`DROP SCHEMA IF EXISTS ${id(schemaOf(v))} CASCADE`;
  await owner.end();
}
