/**
 * Whether the database holds the schema a model needs: the readiness check of a host, which must
 * not serve requests against a database that `migrate` has not brought up to date.
 */
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { Model } from "../model/model.js";
import type { Database } from "./database.js";
import { schemaTables } from "./migrate.js";

/** the tables of `model`'s schema (migrate.ts) that the database lacks, by name */
export async function missingTables(db: Database, model: Model, tables: readonly PgTable[] = []): Promise<string[]> {
  const names = schemaTables(model, tables).map((table) => getTableConfig(table).name);
  const rows = await db.query<{ name: string }>({
    sql: "SELECT name FROM unnest($1::text[]) AS t(name) WHERE to_regclass(quote_ident(name)) IS NULL ORDER BY name",
    params: [names],
  });
  return rows.map((row) => row.name);
}
