/**
 * A tenant session's backend keeps the heap its statements need (backend-heap.ts,
 * RAISE_MALLOC_THRESHOLDS): a statement that takes a few hundred kilobytes of small allocations,
 * as an expanded collection's ARRAY does, runs again without faulting those pages in anew. Read
 * off the backend's minor page faults in /proc, so only where PostgreSQL runs on this machine
 * (CI's PostgreSQL leg). With glibc's default thresholds the statement below faulted in about
 * 110 pages every run; on a backend that ran the set-up, none.
 */
import { readFileSync } from "node:fs";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Session } from "./database.js";
import { openDatabase } from "./open-database.js";
import { inTenant, type TenantTransactionOptions } from "./tenant-scope.js";

/** the minor page faults of a process so far (proc(5): the tenth field of /proc/<pid>/stat) */
const minorFaults = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[7]);

const url = process.env.DATABASE_URL;
const local = url !== undefined && /@(127\.0\.0\.1|localhost)[:/]/.test(url) && process.platform === "linux";

/** a thousand short texts gathered into one: about 200 KB of the executor's small allocations */
const GATHER: SQL = sql`SELECT length(array_to_string(ARRAY(SELECT repeat('x', 100) || i FROM generate_series(1, 1000) i), ',')) AS n`;

// in both ways of holding a tenant (pooler-mode.ts), on a direct connection
describe.runIf(local).each(["session", "transaction"] as const)(
  "a tenant session's backend heap (%s mode)",
  (pooler) => {
    let db: Database;
    // one connection per pool: every statement of a kind meets the same backend
    beforeAll(async () => {
      db = await openDatabase({ url: url!, max: 1, pooler });
    });
    afterAll(() => db.close());

    /** the backend the statements of `options`' kind meet, and its page faults per run of GATHER */
    const faultsPerRun = async (options: TenantTransactionOptions | undefined) => {
      const tenant = uniqueTenant("heap");
      const run = <R>(statement: SQL) => inTenant(db, tenant, (tx: Session) => tx.query<R>(statement), options);
      // after a lost session the first statement fails; the pool reconnects for the next
      let pid: number | undefined;
      for (let attempt = 0; pid === undefined && attempt < 50; attempt++)
        pid = await run<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`).then(
          ([row]) => row!.pid,
          () => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20)),
        );
      // the first run fills the backend's caches, which fault pages in once
      await run(GATHER);
      const before = minorFaults(pid!);
      for (let i = 0; i < 20; i++) expect(await run<{ n: number }>(GATHER)).toEqual([{ n: 103_892 }]);
      return { pid: pid!, faults: (minorFaults(pid!) - before) / 20 };
    };

    it("is not given back and faulted in again at every one-statement read", async () => {
      expect((await faultsPerRun({ readOnly: true, oneStatement: true })).faults).toBeLessThan(10);
    });

    it("is not given back and faulted in again at every tenant transaction", async () => {
      expect((await faultsPerRun(undefined)).faults).toBeLessThan(10);
    });

    it("is kept by the backend of a connection that reconnected to a new session", async () => {
      const READ = { readOnly: true, oneStatement: true } as const;
      const lost = await faultsPerRun(READ);
      // from a connection of its own: in transaction mode the database's one connection is that backend's
      const other = await openDatabase({ url: url!, max: 1 });
      await other.query(sql`SELECT pg_terminate_backend(${lost.pid})`).finally(() => other.close());
      const replaced = await faultsPerRun(READ);
      expect(replaced.pid).not.toBe(lost.pid);
      expect(replaced.faults).toBeLessThan(10);
    });
  },
);
