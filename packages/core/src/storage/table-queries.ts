/**
 * drizzle's query builder over a `Session`, for the framework's own tables (tenants, features,
 * workflows, users, tokens…): each package queries the tables it owns through their table
 * objects, so a renamed column is a type error rather than a 500 at run time, and values travel
 * as parameters. Statements run in the session's transaction (and so under its tenant's
 * row-level security), like every other statement.
 *
 * Rows reach drizzle as the values of each result object in select-list order, so every
 * selected name must be distinct: give computed fields a name (`sql\`…\`.as("used")`).
 */
import { drizzle, type PgRemoteDatabase } from "drizzle-orm/pg-proxy";
import type { Session } from "./database.js";

const builders = new WeakMap<Session, PgRemoteDatabase>();

export function tableQueries(session: Session): PgRemoteDatabase {
  let db = builders.get(session);
  if (db === undefined) {
    db = drizzle(async (sql, params, method) => {
      const rows = await session.query({ sql, params });
      // with selected fields drizzle maps rows from arrays in the order of its select list
      return { rows: method === "all" ? rows.map((row) => Object.values(row)) : rows };
    });
    builders.set(session, db);
  }
  return db;
}
