import { CHANGE_TABLE, type Database, PRUNE_MARGIN_SECONDS } from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { testApp } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { ChangeLogPruner } from "./change-log-pruner.js";

const settings = { enabled: true, retention: 60, pruneInterval: 3600 };

describe("the change log pruner", () => {
  it("prunes past the retention when asked, one prune at a time, and waits for it on close", async () => {
    await testApp();
    const db = await testDatabase();
    const tenantId = uniqueTenant("pr");
    await db.query({
      sql: `INSERT INTO ${CHANGE_TABLE} (tenant_id, entity, key, kind, at) VALUES ($1, 'Product', gen_random_uuid(), 'create', statement_timestamp() - make_interval(secs => $2))`,
      params: [tenantId, settings.retention + PRUNE_MARGIN_SECONDS + 10],
    });
    const pruner = new ChangeLogPruner(db, settings);
    const [first, second] = [pruner.prune(), pruner.prune()];
    expect(second).toBe(first);
    expect(await first).toBeGreaterThanOrEqual(1);
    await pruner.close();
    const [left] = await db.query<{ n: number }>({
      sql: `SELECT count(*)::int AS n FROM ${CHANGE_TABLE} WHERE tenant_id = $1`,
      params: [tenantId],
    });
    expect(left?.n).toBe(0);
  });

  it("tells of a prune that failed, and tries again at the next", async () => {
    let fail = true;
    const db = {
      transaction: async () => {
        if (fail) throw new Error("the database went away");
        return [{ n: 0 }];
      },
    } as unknown as Database;
    const failures: unknown[] = [];
    const pruner = new ChangeLogPruner(db, settings, (err) => failures.push(err));
    expect(await pruner.prune()).toBe(0);
    expect(failures).toHaveLength(1);
    fail = false;
    expect(await pruner.prune()).toBe(0);
    expect(failures).toHaveLength(1);
    await pruner.close();
  });
});
