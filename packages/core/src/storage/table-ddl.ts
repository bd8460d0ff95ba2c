/**
 * Renders idempotent DDL from drizzle table configs: running it on an empty database creates the
 * schema, running it on an older one adds what is missing (tables, columns, indexes, foreign keys)
 * and refreshes the row-level-security policies. Changes that could lose data (dropping or
 * retyping a column) are never made automatically.
 */
import type { SQL } from "drizzle-orm";
import { getTableConfig, PgDialect, type PgTable } from "drizzle-orm/pg-core";
import { quoteIdentifier as q, quoteLiteral } from "./naming.js";

const dialect = new PgDialect();

/** policies are DDL: no parameters are allowed, so the expression is rendered inline */
const inline = (expr: SQL): string => {
  const { sql, params } = dialect.sqlToQuery(expr);
  if (params.length > 0) throw new Error("A policy expression cannot carry parameters.");
  return sql;
};

function defaultClause(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "object" && value !== null && "queryChunks" in value) return ` DEFAULT ${inline(value as SQL)}`;
  if (typeof value === "number" || typeof value === "boolean") return ` DEFAULT ${value}`;
  return ` DEFAULT ${quoteLiteral(String(value))}`;
}

/** the roles a policy names that are keywords, not names (`TO current_user`: the role migrating) */
const ROLE_KEYWORDS = new Set(["public", "current_role", "current_user", "session_user"]);

const roleSpecification = (role: unknown): string =>
  ROLE_KEYWORDS.has(String(role)) ? String(role).toUpperCase() : q(String(role));

export interface TableDdl {
  /** CREATE TABLE / ADD COLUMN / indexes: safe in any order after the table exists */
  readonly create: readonly string[];
  /** foreign keys: run after every table exists */
  readonly constraints: readonly string[];
  /** row-level security and policies */
  readonly security: readonly string[];
}

export function tableDdl(table: PgTable): TableDdl {
  const config = getTableConfig(table);
  const name = q(config.name);
  const columnSql = config.columns.map(
    (c) => `${q(c.name)} ${c.getSQLType()}${c.notNull ? " NOT NULL" : ""}${defaultClause(c.default)}`,
  );
  const pk = config.primaryKeys[0];
  const pkColumns = pk
    ? pk.columns.map((c) => q(c.name))
    : config.columns.filter((c) => c.primary).map((c) => q(c.name));
  const create = [
    `CREATE TABLE IF NOT EXISTS ${name} (${[...columnSql, `PRIMARY KEY (${pkColumns.join(", ")})`].join(", ")})`,
    ...columnSql.map((column) => `ALTER TABLE ${name} ADD COLUMN IF NOT EXISTS ${column}`),
    ...config.indexes.map((ix) => {
      const columns = ix.config.columns.map((c) => q((c as { name: string }).name));
      const method = ix.config.method === undefined || ix.config.method === "btree" ? "" : ` USING ${ix.config.method}`;
      const where = ix.config.where === undefined ? "" : ` WHERE ${inline(ix.config.where)}`;
      return `CREATE ${ix.config.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS ${q(ix.config.name!)} ON ${name}${method} (${columns.join(", ")})${where}`;
    }),
  ];
  const constraints = config.foreignKeys.map((fk) => {
    const ref = fk.reference();
    const foreign = getTableConfig(ref.foreignTable).name;
    const statement =
      `ALTER TABLE ${name} ADD CONSTRAINT ${q(fk.getName())} FOREIGN KEY (${ref.columns.map((c) => q(c.name)).join(", ")}) ` +
      `REFERENCES ${q(foreign)} (${ref.foreignColumns.map((c) => q(c.name)).join(", ")}) ON DELETE ${(fk.onDelete ?? "no action").toUpperCase()}`;
    return `DO $$ BEGIN ${statement}; EXCEPTION WHEN duplicate_object THEN NULL; END $$`;
  });
  const security = config.enableRLS
    ? [
        `ALTER TABLE ${name} ENABLE ROW LEVEL SECURITY`,
        `ALTER TABLE ${name} FORCE ROW LEVEL SECURITY`,
        ...config.policies.flatMap((p) => [
          `DROP POLICY IF EXISTS ${q(p.name)} ON ${name}`,
          `CREATE POLICY ${q(p.name)} ON ${name} AS ${(p.as ?? "permissive").toUpperCase()} FOR ${(p.for ?? "all").toUpperCase()}` +
            ` TO ${
              (p.to as string[] | string | undefined) ? [p.to].flat().map(roleSpecification).join(", ") : "PUBLIC"
            }` +
            (p.using ? ` USING (${inline(p.using)})` : "") +
            (p.withCheck ? ` WITH CHECK (${inline(p.withCheck)})` : ""),
        ]),
      ]
    : [];
  return { create, constraints, security };
}
