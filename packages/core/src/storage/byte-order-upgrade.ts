/**
 * Gives the columns a table declares `COLLATE "C"` (its tenant column: tenant-column.ts) that
 * collation where an earlier version made them in the database's own. The type stays text, so no
 * value changes, but PostgreSQL rebuilds every index on the column, and its foreign keys, under an
 * exclusive lock on the table; and a column that a policy uses cannot be retyped, so the table's
 * own policies are dropped first (migrate makes them again right after). That is quick for most
 * tables, so migrate does it at once; a table of `LARGE_TABLE_ROWS` or more would be locked for
 * the whole rebuild, so it keeps its column until the conversion is asked for.
 */
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { Session } from "./database.js";
import { quoteIdentifier as q } from "./naming.js";

/** a table this large is changed without blocking its writers, or not at once (migrate.ts) */
export const LARGE_TABLE_ROWS = 100_000;

const BYTE_ORDER = 'COLLATE "C"';

interface DeclaredColumn {
  readonly table: string;
  readonly column: string;
  /** the column's declared type, `text COLLATE "C"` */
  readonly type: string;
  /** the table's policies, which migrate drops and makes again */
  readonly policies: readonly string[];
}

/** every column `tables` declare byte-ordered */
function byteOrderedColumns(tables: readonly PgTable[]): DeclaredColumn[] {
  return tables.flatMap((table) => {
    const config = getTableConfig(table);
    return config.columns
      .filter((c) => c.getSQLType().endsWith(BYTE_ORDER))
      .map((c) => ({
        table: config.name,
        column: c.name,
        type: c.getSQLType(),
        policies: config.policies.map((p) => p.name),
      }));
  });
}

export interface ByteOrderUpgrade {
  /** the tables whose columns got their byte order */
  readonly converted: readonly string[];
  /** the large tables whose columns still compare in the database's collation */
  readonly left: readonly string[];
}

/**
 * Converts, in `tx`, the byte-ordered columns of `tables` that are still in another collation:
 * all of them with `includeLarge`, else those of tables under LARGE_TABLE_ROWS (by the planner's
 * estimate, which autovacuum keeps current). Run after the tables exist and before their
 * policies are made.
 */
export async function upgradeByteOrder(
  tx: Session,
  tables: readonly PgTable[],
  includeLarge: boolean,
): Promise<ByteOrderUpgrade> {
  const declared = byteOrderedColumns(tables);
  const found = await tx.query<{ table: string; column: string; rows: number }>({
    sql: `SELECT w.t AS "table", w.c AS "column", greatest(r.reltuples, 0)::float8 AS rows
          FROM unnest($1::text[], $2::text[]) AS w(t, c)
          JOIN pg_class r ON r.oid = to_regclass(quote_ident(w.t))
          JOIN pg_attribute a ON a.attrelid = r.oid AND a.attname = w.c
          WHERE a.attcollation <> 'pg_catalog."C"'::regcollation`,
    params: [declared.map((d) => d.table), declared.map((d) => d.column)],
  });
  const converted = new Set<string>();
  const left = new Set<string>();
  for (const { table, column, rows } of found) {
    if (!includeLarge && Number(rows) >= LARGE_TABLE_ROWS) {
      left.add(table);
      continue;
    }
    const { type, policies } = declared.find((d) => d.table === table && d.column === column)!;
    try {
      if (!converted.has(table))
        for (const policy of policies)
          await tx.query({ sql: `DROP POLICY IF EXISTS ${q(policy)} ON ${q(table)}`, params: [] });
      await tx.query({ sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(column)} TYPE ${type}`, params: [] });
    } catch (err) {
      throw new Error(
        `Could not give ${table}.${column} its byte order (${BYTE_ORDER}): ${(err as Error).message}. A view or a policy of your own that uses the column keeps it from changing: drop it, migrate, and make it again.`,
        { cause: err },
      );
    }
    converted.add(table);
  }
  return { converted: [...converted].sort(), left: [...left].sort() };
}
