/**
 * @bizdata/core/postgres: the PostgreSQL driver alone (postgres.js), for an application that opens
 * PostgreSQL itself. Needs the package `postgres`.
 *
 * @example
 * const db = await openPostgres("postgres://app@db.internal:5432/app", { max: 20 });
 */
export { openPostgres, type PostgresOptions } from "./storage/postgres-database.js";
