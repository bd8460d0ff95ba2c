/**
 * Picks the driver the way the conventions say: `postgres://…` is PostgreSQL, `memory://` an
 * in-memory PGlite, anything else (or nothing) a PGlite data directory.
 */
import type { Database } from "./database.js";
import { openPglite } from "./pglite-database.js";
import { openPostgres, type PostgresOptions } from "./postgres-database.js";

export interface OpenOptions extends PostgresOptions {
  /** `DATABASE_URL`: `postgres://…`, `postgresql://…` or `memory://`; unset uses `dataDir` */
  readonly url?: string | undefined;
  /** PGlite data directory when no URL is given; default `./.data` */
  readonly dataDir?: string | undefined;
}

export async function openDatabase(options: OpenOptions = {}): Promise<Database> {
  const url = options.url?.trim();
  if (url?.startsWith("postgres://") || url?.startsWith("postgresql://")) return openPostgres(url, options);
  if (url === "memory://") return openPglite("memory://");
  if (url) throw new Error(`DATABASE_URL "${url.split("@").pop()}" is neither postgres://… nor memory://.`);
  return openPglite(options.dataDir ?? "./.data");
}

/** a printable form of the database address without credentials */
export const describeDatabase = (options: OpenOptions): string => {
  const url = options.url?.trim();
  if (!url) return `PGlite at ${options.dataDir ?? "./.data"}`;
  if (url === "memory://") return "PGlite in memory";
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "PostgreSQL";
  }
};
