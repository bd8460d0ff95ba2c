/**
 * Picks the driver the way the conventions say: `postgres://…` is PostgreSQL, `memory://` an
 * in-memory PGlite, anything else (or nothing) a PGlite data directory. Each driver is loaded only
 * when it is asked for, so an application installs just the driver package it uses
 * (`@electric-sql/pglite` and `@bizdata/postgres`, the project's fork of postgres.js, are optional
 * peer dependencies of @bizdata/core).
 */
import type { Database } from "./database.js";
import { hostsOf } from "./multi-host-url.js";
import type { PostgresOptions } from "./postgres-options.js";
import { defaultReplicaSettings, type ReplicaSettings, routeReads } from "./read-replicas.js";

/**
 * Loads a driver module; when its database package is not installed, says which one to install
 * instead of Node's bare "Cannot find package".
 */
export async function loadDriver<T>(load: () => Promise<T>, packageName: string, purpose: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing =
      (err as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" &&
      String((err as Error).message).includes(`'${packageName}'`);
    if (!missing) throw err;
    throw new Error(`${purpose} needs the package ${packageName}, which is not installed: npm install ${packageName}`, {
      cause: err,
    });
  }
}

const openPglite = async (dataDir: string, options: StoreOptions) =>
  (
    await loadDriver(() => import("./pglite-database.js"), "@electric-sql/pglite", "The embedded database (PGlite)")
  ).openPglite(dataDir, options);

const openPostgres = async (url: string, options: PostgresOptions & StoreOptions) =>
  (
    await loadDriver(() => import("./postgres-database.js"), "@bizdata/postgres", "DATABASE_URL=postgres://…")
  ).openPostgres(url, options);

/** what the drivers' store of the base tables does besides storing */
export interface StoreOptions {
  /**
   * `CHANGE_LOG`: whether every write appends its change log rows (change-table.ts; default true).
   * Off, nothing is logged: delta links and record histories show no change made meanwhile.
   */
  readonly changeLog?: boolean | undefined;
}

export interface OpenOptions extends PostgresOptions, StoreOptions {
  /** `DATABASE_URL`: `postgres://…`, `postgresql://…` or `memory://`; unset uses `dataDir` */
  readonly url?: string | undefined;
  /** PGlite data directory when no URL is given; default `./.data` */
  readonly dataDir?: string | undefined;
  /**
   * `DATABASE_READ_URL`: streaming replicas of the PostgreSQL `url` for one-statement tenant
   * reads (read-replicas.ts), each with a pool like the primary's; settings default to
   * defaultReplicaSettings
   */
  readonly readReplicas?: { readonly urls: readonly string[] } & Partial<ReplicaSettings>;
}

const isPostgresUrl = (url: string): boolean => url.startsWith("postgres://") || url.startsWith("postgresql://");

export async function openDatabase(options: OpenOptions = {}): Promise<Database> {
  const url = options.url?.trim();
  const readUrls = options.readReplicas?.urls ?? [];
  if (readUrls.length > 0 && (url === undefined || !isPostgresUrl(url)))
    throw new Error(
      "DATABASE_READ_URL names read replicas of a PostgreSQL primary: set DATABASE_URL=postgres://… too.",
    );
  if (url !== undefined && isPostgresUrl(url)) {
    if (readUrls.length === 0) return openPostgres(url, options);
    for (const readUrl of readUrls)
      if (!isPostgresUrl(readUrl))
        throw new Error(`DATABASE_READ_URL "${readUrl.split("@").pop()}" is not postgres://….`);
    const [primary, ...replicas] = await Promise.all([url, ...readUrls].map((u) => openPostgres(u, options)));
    return routeReads(primary!, replicas, { ...defaultReplicaSettings, ...options.readReplicas });
  }
  if (url === "memory://") return openPglite("memory://", options);
  if (url) throw new Error(`DATABASE_URL "${url.split("@").pop()}" is neither postgres://… nor memory://.`);
  return openPglite(options.dataDir ?? "./.data", options);
}

/** a printable form of the database address without credentials */
export const describeDatabase = (options: OpenOptions): string => {
  const url = options.url?.trim();
  if (!url) return `PGlite at ${options.dataDir ?? "./.data"}`;
  if (url === "memory://") return "PGlite in memory";
  const hosts = hostsOf(url);
  if (!hosts) return "PostgreSQL";
  const path = /^postgres(?:ql)?:\/\/[^/?#]*(\/[^?#]*)?/.exec(url)?.[1] ?? "/";
  const named = hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`);
  const replicas = options.readReplicas?.urls.length ?? 0;
  const reads = replicas === 0 ? "" : ` with ${replicas} read replica${replicas === 1 ? "" : "s"}`;
  return `PostgreSQL at ${named.join(",")}${path}${reads}`;
};
