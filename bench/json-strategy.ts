/**
 * Where should a read's JSON be built? Runs the query mix in-process (no HTTP) with record JSON
 * built from flat rows in TypeScript and with record JSON built by PostgreSQL, on PGlite and on
 * PostgreSQL, and prints the time per query of each and their ratio (see OutputOptions.jsonIn).
 *
 *   npx tsx bench/json-strategy.ts        (DATABASE_URL as for pnpm bench)
 */
import { type Database, inTenant, migrate, openDatabase } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { createTenant, seedSampleData } from "@bizdata/host";
import { ReadPlanner, runCollection } from "@bizdata/odata";

const queries = [
  "Product?$select=SKU,SalesDescription,Cost&$filter=Cost lt 50&$orderby=SKU&$top=100",
  "Customer?$filter=PrimaryContact/MailingAddress/State eq 'PA'&$select=Id,Title&$expand=PrimaryContact($select=FirstName,LastName)&$top=50",
  "SalesOrder?$filter=Status eq 'Open'&$expand=Details($select=Quantity,UnitPrice;$expand=Product($select=SKU))&$top=20",
  "Contact?$select=FirstName,LastName,FullName,MailingAddress&$top=100",
];

const TENANT = "json-strategy";
const SIZES = { products: 5000, customers: 2500, orders: 5000, invoices: 100, journals: 100 };

async function timePerQuery(db: Database, jsonIn: "rows" | "database", query: string): Promise<number> {
  const planner = new ReadPlanner(sampleModel, { jsonIn });
  const [path, search] = query.split("?") as [string, string];
  const read = planner.plan({ path, search: new URLSearchParams(search), ieee754Compatible: false });
  if (read.kind !== "collection") throw new Error("collection reads only");
  const run = () =>
    inTenant(db, TENANT, (tx) => runCollection(tx, read.prepared, { tenantId: TENANT }), { readOnly: true });
  for (let i = 0; i < 20; i++) await run();
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < 2000) {
    await run();
    n++;
  }
  return (performance.now() - started) / n;
}

async function measure(label: string, db: Database) {
  await migrate(db, sampleModel);
  await createTenant(db, TENANT);
  await seedSampleData(db, sampleModel, TENANT, SIZES);
  console.log(`\n${label}\n| query | rows in TS ms | JSON in database ms | database / rows |\n|---|---|---|---|`);
  for (const q of queries) {
    const rows = await timePerQuery(db, "rows", q);
    const database = await timePerQuery(db, "database", q);
    console.log(
      `| ${q.slice(0, 70)}… | ${rows.toFixed(2)} | ${database.toFixed(2)} | ${(database / rows).toFixed(2)} |`,
    );
  }
  await db.close();
}

await measure("PGlite (memory://)", await openDatabase({ url: "memory://" }));
await measure(
  "PostgreSQL",
  await openDatabase({ url: process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test" }),
);
