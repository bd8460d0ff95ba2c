/**
 * The production driver: PostgreSQL through postgres.js, with prepared statements on (the
 * architecture's first performance lesson). Result types are read as text where JavaScript would
 * lose information (numeric, int8) or change the form (dates), the same as the PGlite driver.
 */
import postgres from "postgres";
import { type Database, type Row, type Session, type Statement, toQuery } from "./database.js";

export interface PostgresOptions {
  /** pool size; default 10 */
  readonly max?: number;
}

const asText = { to: 25, from: [1700, 1082, 1184, 1114, 20], serialize: String, parse: (v: string) => v };

const session = (sql: postgres.Sql<any> | postgres.TransactionSql<any>): Session => ({
  async query<R = Row>(statement: Statement) {
    const q = toQuery(statement);
    return (await sql.unsafe(q.sql, q.params as postgres.ParameterOrJSON<never>[], {
      prepare: true,
    })) as unknown as R[];
  },
});

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const sql = postgres(url, {
    max: options.max ?? 10,
    prepare: true,
    onnotice: () => {},
    types: { asText } as any,
  });
  const root = session(sql);
  return {
    driver: "postgres",
    query: root.query,
    transaction: async (fn, options) =>
      (await sql.begin(options?.readOnly ? "read only" : "read write", (tx) => fn(session(tx)))) as any,
    close: () => sql.end({ timeout: 5 }),
  };
}
