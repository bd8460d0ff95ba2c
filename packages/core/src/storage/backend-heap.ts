/**
 * What a PostgreSQL backend is told once so that it keeps its heap. A module of its own, apart
 * from the driver (postgres-database.ts), so that the main entry can export it to pools of an
 * application's own without importing the `postgres` package, an optional peer.
 */
import type { SqlQuery } from "./database.js";

/**
 * Sent once per backend, ahead of its first tenant set-up: allocates and frees one 1 MB value.
 * glibc's malloc gives the top of a process's heap back to the system whenever more than 128 KB
 * of it is free, and raises that threshold only once a block it mapped on its own is freed. A
 * backend that never freed so large a block shrinks its heap after every statement that needed
 * more than that and faults the pages in again at the next: an expanded collection's statement
 * (its items' ARRAY) cost PostgreSQL 1.2–1.8 ms of CPU per run so, 0.7–0.8 ms on a backend that
 * had run this first (strace: 2 brk per statement before, none after). Freeing the 1 MB block
 * lifts the thresholds to 1 MB allocated and 2 MB kept free for the backend's life; any other
 * allocator just runs one cheap statement. Exported for pools of an application's own.
 */
export const RAISE_MALLOC_THRESHOLDS: SqlQuery = { sql: "SELECT length(repeat(' ', 1048576))", params: [] };
