/**
 * Gives the columns a table declares `COLLATE "C"` (its tenant column: tenant-column.ts) that
 * collation where an earlier version made them in the database's own. The type stays text, so no
 * value changes, but PostgreSQL rebuilds every index on the column, and its foreign keys, under an
 * exclusive lock on the table; and a column that a policy uses cannot be retyped, so the table's
 * own policies are dropped first (migrate makes them again right after), while one that a view or
 * a policy of the application's own uses is left as it is. That is quick for most
 * tables, so migrate does it at once; a large table (table-size.ts) would be locked for
 * the whole rebuild, so it keeps its column until the conversion is asked for.
 */
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { Session } from "./database.js";
import { quoteIdentifier as q } from "./naming.js";
import { isLargeTable } from "./table-size.js";

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
  /** tables whose columns views or policies of the application's own use (`view x`, `policy y`): they keep them */
  readonly blocked: readonly { readonly table: string; readonly usedBy: readonly string[] }[];
}

/**
 * Converts, in `tx`, the byte-ordered columns of `tables` that are still in another collation:
 * all of them with `includeLarge`, else those of tables that are not large (table-size.ts). A
 * column that a view, a rule or a policy other than the table's own uses cannot be retyped: its table is left as it is and reported, found
 * beforehand so that it fails neither the migration nor a host's start. Run after the tables
 * exist and before their policies are made.
 */
export async function upgradeByteOrder(
  tx: Session,
  tables: readonly PgTable[],
  includeLarge: boolean,
): Promise<ByteOrderUpgrade> {
  const declared = byteOrderedColumns(tables);
  const found = await tx.query<{ table: string; column: string; rows: number; used_by: string[] | null }>({
    sql: `SELECT w.t AS "table", w.c AS "column", r.reltuples::float8 AS rows,
            (SELECT array_agg(DISTINCT CASE WHEN v.oid IS NOT NULL THEN 'view ' || v.relname ELSE 'policy ' || p.polname END)
             FROM pg_depend d
             LEFT JOIN pg_rewrite rw ON d.classid = 'pg_rewrite'::regclass AND rw.oid = d.objid
             LEFT JOIN pg_class v ON v.oid = rw.ev_class
             LEFT JOIN pg_policy p ON d.classid = 'pg_policy'::regclass AND p.oid = d.objid
             WHERE d.refobjid = r.oid AND d.refobjsubid = a.attnum
               AND (v.oid IS NOT NULL OR (p.oid IS NOT NULL AND NOT p.polname = ANY(string_to_array(w.p, ','))))) AS used_by
          FROM unnest($1::text[], $2::text[], $3::text[]) AS w(t, c, p)
          JOIN pg_class r ON r.oid = to_regclass(quote_ident(w.t))
          JOIN pg_attribute a ON a.attrelid = r.oid AND a.attname = w.c
          WHERE a.attcollation <> 'pg_catalog."C"'::regcollation
          ORDER BY 1, 2`,
    params: [declared.map((d) => d.table), declared.map((d) => d.column), declared.map((d) => d.policies.join(","))],
  });
  const byTable = new Map<string, typeof found>();
  for (const f of found) {
    const columns = byTable.get(f.table);
    if (columns === undefined) byTable.set(f.table, [f]);
    else columns.push(f);
  }
  const converted: string[] = [];
  const left: string[] = [];
  const blocked: { table: string; usedBy: string[] }[] = [];
  for (const [table, columns] of byTable) {
    const usedBy = [...new Set(columns.flatMap((c) => c.used_by ?? []))].sort();
    if (usedBy.length > 0) {
      blocked.push({ table, usedBy });
      continue;
    }
    if (!includeLarge && (await isLargeTable(tx, table, columns[0]!.rows))) {
      left.push(table);
      continue;
    }
    const changes = columns.map(({ column }) => declared.find((d) => d.table === table && d.column === column)!);
    for (const policy of changes[0]!.policies)
      await tx.query({ sql: `DROP POLICY IF EXISTS ${q(policy)} ON ${q(table)}`, params: [] });
    for (const { column, type } of changes)
      await tx.query({ sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(column)} TYPE ${type}`, params: [] });
    converted.push(table);
  }
  return { converted, left, blocked };
}
