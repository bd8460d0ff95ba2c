/**
 * @bizdata/core/pglite: the embedded driver alone, for an application that opens PGlite itself.
 * Needs the package `@electric-sql/pglite`.
 *
 * @example
 * const db = await openPglite("memory://"); // or a data directory
 */
export { openPglite } from "./storage/pglite-database.js";
