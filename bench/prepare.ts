/**
 * Brings a database to what every scenario reads: the schema, tenant `bench` with an admin user,
 * and the sample data at the run's scale. Idempotent, so repeated runs reuse the seeded tenant.
 * Products that earlier runs' create scenario added (SKU `bench-…`, some tens of thousands a run)
 * are deleted first, so every run reads the same data: `query-filter` sorts the products under a
 * price, and a table that grew from run to run would make the numbers drift. The tables read are
 * then vacuumed and analyzed, so both targets get plans made from statistics (the database may run
 * without autovacuum) and counts can use index-only scans.
 *
 * Each scale has a database of its own (scale 1 the one DATABASE_URL names, scale 10 `<name>_x10`
 * beside it, created when missing), so everything a scale measures, writes included, meets tables
 * of that size. A fraction of the default sizes is seeded by the generator; a whole number above
 * one seeds the default sizes and then copies them in set-based SQL (`multiply`): seconds for a
 * million order lines, where the generator's inserts take minutes.
 */
import {
  columnOf,
  type Database,
  inTenant,
  openDatabase,
  persistedColumns,
  TENANT_COLUMN,
  tableName,
  VERSION_COLUMN,
} from "@bizdata/core";
import { defaultSampleSizes, type SampleOptions, sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext, createTenant, migrateService, setUser } from "@bizdata/host";

export const benchTenant = { id: "bench", username: "bench", password: "bench" } as const;

/** how many product guids the read-one scenario rotates among */
const KNOWN_GUIDS = 300;

/** entities a larger scale keeps as they are: reference data, not volume */
const REFERENCE_DATA = new Set(["Country", "PriceLevel"]);

/** the sample's stored entities in the model's order, which has the referenced before those referring to them */
const storedEntities = [...sampleModel.entities.values()].filter((def) => def.storage === undefined);

const scaled = (scale: number): SampleOptions => {
  const { products, customers, orders, invoices, journals } = defaultSampleSizes;
  const part = (n: number) => Math.max(1, Math.round(n * scale));
  return {
    products: part(products),
    customers: part(customers),
    orders: part(orders),
    invoices: part(invoices),
    journals: part(journals),
  };
};

/** the database a scale is measured in: scale 1 the one given, another one beside it named for its scale */
function scaleDatabaseUrl(databaseUrl: string, scale: number): string {
  if (scale === 1) return databaseUrl;
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1)) || "postgres";
  url.pathname = `/${name}_x${String(scale).replace(".", "_")}`;
  return url.toString();
}

/** the database of a scale (scaleDatabaseUrl), created from a connection to `databaseUrl` unless it exists */
export async function scaleDatabase(databaseUrl: string, scale: number): Promise<string> {
  const url = scaleDatabaseUrl(databaseUrl, scale);
  if (url === databaseUrl) return url;
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const db = await openDatabase({ url: databaseUrl, max: 1 });
  try {
    const [found] = await db.query({ sql: "SELECT 1 FROM pg_database WHERE datname = $1", params: [name] });
    // a name made of the given database's and the scale; quoted as an identifier
    if (found === undefined) await db.query({ sql: `CREATE DATABASE "${name.replaceAll('"', '""')}"`, params: [] });
  } catch (error) {
    throw new Error(
      `The database ${name} for a scale other than 1 could not be created (${(error as Error).message}): create it, or let the bench's user create databases.`,
    );
  } finally {
    await db.close();
  }
  return url;
}

/** a copy's Guid: derived from the original's and the copy's number, so references follow it */
const copyGuid = (column: string) =>
  `overlay(overlay(md5(${column}::text || ':' || n) placing '4' from 13) placing '8' from 17)::uuid`;

/**
 * Copies every record of the tenant (but the reference data) `factor - 1` times, in one
 * statement per table: copy n derives its Guids and references from the original's (copyGuid)
 * and suffixes unique natural keys with `~n`. The copies keep the originals' values, so every
 * distribution (open orders, cheap products, contacts in Texas) stays what the generator made.
 */
async function multiply(db: Database, tenantId: string, factor: number): Promise<void> {
  const [role] = await db.query<{ rolsuper: boolean }>({
    sql: "SELECT rolsuper FROM pg_roles WHERE rolname = current_user",
    params: [],
  });
  await db.transaction(async (tx) => {
    // the references are consistent by construction: a superuser skips the per-row foreign-key checks
    if (role?.rolsuper) await tx.query({ sql: "SET LOCAL session_replication_role = replica", params: [] });
    for (const def of storedEntities) {
      if (REFERENCE_DATA.has(def.name)) continue;
      const naturalKey = def.naturalKey.unique ? columnOf(def, [def.naturalKey.property]) : undefined;
      const columns = persistedColumns(def).map((c) => {
        const copied =
          c.column === "guid" ||
          (c.field.kind === "reference" && !REFERENCE_DATA.has((c.field as { target: string }).target));
        if (copied) return [c.column, copyGuid(`"${c.column}"`)] as const;
        if (c === naturalKey && c.column !== "guid") return [c.column, `"${c.column}" || '~' || n`] as const;
        return [c.column, `"${c.column}"`] as const;
      });
      const all = [[TENANT_COLUMN, TENANT_COLUMN], [VERSION_COLUMN, VERSION_COLUMN], ...columns] as const;
      await tx.query({
        sql: `INSERT INTO "${tableName(def)}" (${all.map(([name]) => `"${name}"`).join(", ")})
              SELECT ${all.map(([, value]) => value).join(", ")}
              FROM "${tableName(def)}" CROSS JOIN generate_series(2, $2::int) AS n WHERE ${TENANT_COLUMN} = $1`,
        params: [tenantId, factor],
      });
    }
  });
}

export interface BenchData {
  /** the database this scale is measured in */
  readonly databaseUrl: string;
  /** product guids spread over the key range (hashed order), so point reads do not hit one page */
  readonly guids: readonly string[];
  /** what the bench tenant holds, for the report */
  readonly orders: number;
  readonly lines: number;
}

export async function prepareDatabase(databaseUrl: string, scale: number): Promise<BenchData> {
  const url = await scaleDatabase(databaseUrl, scale);
  // no statement timeout: multiplying the tenant copies a table in one statement, which at 30x
  // (3 million order lines) runs past the host's default of 30 s
  const db = await openDatabase({ url, max: 2, statementTimeout: 0 });
  try {
    await migrateService(db, sampleModel);
    await createTenant(db, benchTenant.id, "Benchmarks");
    await setUser(db, benchTenant.id, benchTenant.username, benchTenant.password, ["admin"]);
    const seeded = await seedSampleData(adminContext(db, sampleModel), benchTenant.id, scaled(Math.min(scale, 1)));
    if (seeded.seeded) console.log(`seeded ${seeded.records} sample records into tenant ${benchTenant.id}`);
    const [removed] = await db.query<{ n: string }>({
      sql: "WITH d AS (DELETE FROM product WHERE tenant_id = $1 AND sku LIKE 'bench-%' RETURNING 1) SELECT count(*) AS n FROM d",
      params: [benchTenant.id],
    });
    if (Number(removed?.n) > 0) {
      console.error(`removed ${removed!.n} products of earlier create runs`);
      // their index entries stay behind (VACUUM frees the pages for reuse but keeps them): after a
      // few hundred thousand removed, product's natural-key index had grown from 4 to 102 MB,
      // which made the planner take a bitmap scan and sort for the bare floor's cheap-products
      // page, a third of its speed, and every later figure drift from run to run
      await db.query({ sql: "REINDEX TABLE product", params: [] });
    }
    const count = async (table: string) =>
      Number(
        (
          await db.query<{ n: string }>({
            sql: `SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`,
            params: [benchTenant.id],
          })
        )[0]!.n,
      );
    if (scale > 1) {
      const products = await count("product");
      if (products === defaultSampleSizes.products) {
        const started = performance.now();
        await multiply(db, benchTenant.id, scale);
        console.log(
          `multiplied tenant ${benchTenant.id} by ${scale} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
      } else if (products !== defaultSampleSizes.products * scale)
        throw new Error(
          `Tenant ${benchTenant.id} in ${new URL(url).pathname.slice(1)} holds ${products} products, neither the default ${defaultSampleSizes.products} nor ${scale} times that: drop the database to seed it anew.`,
        );
    }
    // fresh statistics, or the planner guesses: with autovacuum off (or behind) a seeded table
    // looks empty, and a filtered, ordered page becomes a scan and sort of the whole table
    await db.query({ sql: `VACUUM (ANALYZE) ${storedEntities.map(tableName).join(", ")}`, params: [] });
    const rows = await inTenant(db, benchTenant.id, (tx) =>
      tx.query<{ guid: string }>({
        sql: "SELECT guid::text AS guid FROM product WHERE tenant_id = $1 ORDER BY md5(guid::text) LIMIT $2",
        params: [benchTenant.id, KNOWN_GUIDS],
      }),
    );
    return {
      databaseUrl: url,
      guids: rows.map((r) => r.guid),
      orders: await count("sales_order"),
      lines: await count("sales_order_detail"),
    };
  } finally {
    await db.close();
  }
}
