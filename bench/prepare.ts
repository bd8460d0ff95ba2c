/**
 * Brings the database to what every scenario reads: the schema, tenant `bench` with an admin
 * user, and the sample data. Idempotent, so repeated runs reuse the seeded tenant: the sizes and
 * BENCH_SCALE only matter for the run that first seeds it. Products that earlier runs' create
 * scenario added (SKU `bench-…`, some tens of thousands a run) are deleted first, so every run
 * reads the same data: `query-filter` sorts the products under a price, and a table that grew
 * from run to run would make the numbers drift. The tables read are then vacuumed and analyzed,
 * so both targets get plans made from statistics (the database may run without autovacuum).
 */
import { inTenant, openDatabase } from "@bizdata/core";
import { defaultSampleSizes, type SampleOptions, sampleModel, seedSampleData } from "@bizdata/examples";
import { adminContext, createTenant, migrateService, setUser } from "@bizdata/host";

export const benchTenant = { id: "bench", username: "bench", password: "bench" } as const;

/** the tables the scenarios read */
const ANALYZED = ["product", "customer", "contact", "sales_order", "sales_order_detail"];

/** how many product guids the read-one scenario rotates among */
const KNOWN_GUIDS = 300;

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

export interface BenchData {
  /** product guids spread over the key range (hashed order), so point reads do not hit one page */
  readonly guids: readonly string[];
}

export async function prepareDatabase(databaseUrl: string, scale: number): Promise<BenchData> {
  const db = await openDatabase({ url: databaseUrl, max: 2 });
  try {
    await migrateService(db, sampleModel);
    await createTenant(db, benchTenant.id, "Benchmarks");
    await setUser(db, benchTenant.id, benchTenant.username, benchTenant.password, ["admin"]);
    const seeded = await seedSampleData(adminContext(db, sampleModel), benchTenant.id, scaled(scale));
    if (seeded.seeded) console.log(`seeded ${seeded.records} sample records into tenant ${benchTenant.id}`);
    const [removed] = await db.query<{ n: string }>({
      sql: "WITH d AS (DELETE FROM product WHERE tenant_id = $1 AND sku LIKE 'bench-%' RETURNING 1) SELECT count(*) AS n FROM d",
      params: [benchTenant.id],
    });
    if (Number(removed?.n) > 0) console.error(`removed ${removed!.n} products of earlier create runs`);
    // fresh statistics, or the planner guesses: with autovacuum off (or behind) a seeded table
    // looks empty, and a filtered, ordered page becomes a scan and sort of the whole table
    await db.query({ sql: `VACUUM (ANALYZE) ${ANALYZED.join(", ")}`, params: [] });
    const rows = await inTenant(db, benchTenant.id, (tx) =>
      tx.query<{ guid: string }>({
        sql: "SELECT guid::text AS guid FROM product WHERE tenant_id = $1 ORDER BY md5(guid::text) LIMIT $2",
        params: [benchTenant.id, KNOWN_GUIDS],
      }),
    );
    return { guids: rows.map((r) => r.guid) };
  } finally {
    await db.close();
  }
}
