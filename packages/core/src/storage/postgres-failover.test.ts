/**
 * The PostgreSQL driver over a multi-host URL with `target_session_attrs=read-write`, on a
 * throwaway primary and its standby (packages/test-kit/src/postgres-cluster.ts): every pool finds
 * the primary whichever host comes first, and while there is none (the primary died, the standby
 * is not promoted yet) work fails within the connect timeout with an error the host answers 503,
 * instead of waiting for as long as postgres.js goes on trying the hosts in turn. The host's
 * failover test (host: lifecycle/host-failover.test.ts) runs the promotion under load.
 */

import postgres from "@bizdata/postgres";
import {
  type Cluster,
  missingReplicationBinaries,
  startCluster,
  startStandby,
} from "@bizdata/test-kit/postgres-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, TransactionOptions } from "./database.js";
import { openPostgres } from "./postgres-database.js";
import { APP_ROLE } from "./tenant-policy.js";
import { isTransientDatabaseError } from "./transient-errors.js";

const missing = await missingReplicationBinaries();
if (missing) console.warn(`skipping the PostgreSQL failover tests: ${missing}`);

const CONNECT_TIMEOUT_MS = 1000;
const tenant = "failover";
const write: TransactionOptions = { tenant };
const read: TransactionOptions = { tenant, readOnly: true, oneStatement: true };

describe.skipIf(missing !== undefined)("the PostgreSQL driver over a multi-host URL", () => {
  let primary: Cluster;
  let standby: Cluster;
  let db: Database;
  let id = 0;
  let acknowledged = 0;
  const insert = async () => {
    await db.transaction(
      (tx) => tx.commitWith!([{ sql: "INSERT INTO failover (id) VALUES ($1)", params: [++id] }]),
      write,
    );
    acknowledged++;
  };
  const count = async () =>
    (
      await db.transaction(
        (tx) => tx.query<{ n: number }>({ sql: "SELECT count(*)::int AS n FROM failover", params: [] }),
        read,
      )
    )[0]?.n;
  const inRecovery = (options: TransactionOptions) =>
    db.transaction(
      async (tx) =>
        (await tx.query<{ standby: boolean }>({ sql: "SELECT pg_is_in_recovery() AS standby", params: [] }))[0]
          ?.standby,
      options,
    );

  beforeAll(async () => {
    primary = await startCluster();
    standby = await startStandby(primary, "standby1");
    // the standby first: the pools must pass it by
    const url = `postgres://postgres@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/postgres?target_session_attrs=read-write`;
    db = await openPostgres(url, { max: 2, connectTimeout: CONNECT_TIMEOUT_MS });
    await db.query({ sql: "CREATE TABLE failover (id int PRIMARY KEY)", params: [] });
    await db.query({ sql: `CREATE ROLE ${APP_ROLE} NOLOGIN`, params: [] });
    await db.query({ sql: `GRANT SELECT, INSERT ON failover TO ${APP_ROLE}`, params: [] });
    // a session opened on the standby in the role before the standby has it would fail to start
    const onStandby = postgres(standby.url, { max: 1 });
    const hasRole = async () => (await onStandby`SELECT 1 FROM pg_roles WHERE rolname = ${APP_ROLE}`).length === 1;
    for (let i = 0; i < 100 && !(await hasRole()); i++) await new Promise((r) => setTimeout(r, 20));
    await onStandby.end();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await Promise.all([primary?.destroy(), standby?.destroy()]);
  });

  it("runs every pool's work on the primary, the read-only sessions' too", async () => {
    await insert();
    expect(await inRecovery(read)).toBe(false);
    expect(await inRecovery({ tenant, readOnly: true })).toBe(false);
    expect(await inRecovery(write)).toBe(false);
    expect(await inRecovery({})).toBe(false);
    expect(await count()).toBe(1);
  });

  it("fails work within the connect timeout while no server is the primary, and serves once the standby is promoted", async () => {
    await primary.stopImmediately();
    const operations: [string, () => Promise<unknown>][] = [
      ["a tenant's write", insert],
      ["a tenant's read", () => inRecovery(read)],
      ["a tenant's read of several statements", () => inRecovery({ tenant, readOnly: true })],
      ["a transaction outside a tenant", () => inRecovery({})],
      ["a statement outside a tenant", () => db.query({ sql: "SELECT 1", params: [] })],
    ];
    for (const [name, operation] of operations) {
      const started = Date.now();
      const outcome = await Promise.race([
        operation().then(
          () => "served",
          (error: unknown) => (isTransientDatabaseError(error) ? "transient" : String(error)),
        ),
        new Promise((r) => setTimeout(r, 4 * CONNECT_TIMEOUT_MS, "still waiting")),
      ]);
      expect([name, outcome, Date.now() - started < 2 * CONNECT_TIMEOUT_MS]).toEqual([name, "transient", true]);
    }
    await standby.promote();
    const promoted = Date.now();
    let served = false;
    while (!served && Date.now() - promoted < 5000)
      served = await insert().then(
        () => true,
        () => false,
      );
    expect(served).toBe(true);
    expect(await inRecovery(read)).toBe(false);
    // the row written before the crash reached the standby, and each acknowledged one is there
    expect(await count()).toBe(acknowledged);
  });
});
