import { changesSettled } from "@bizdata/test-kit/change-log";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import { defineModel } from "../model/model.js";
import type { Database } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { inTenant } from "../storage/tenant-scope.js";
import { readChanges } from "./change-reads.js";
import { CHANGE_TABLE } from "./change-table.js";
import { PRUNE_MARGIN_SECONDS, pruneChanges } from "./prune-changes.js";

let db: Database;
beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, defineModel([]));
});

/** a change of tenant `t` made `ageSeconds` ago, written as the owner (past row-level security) */
const logged = (t: string, ageSeconds: number) =>
  db.query({
    sql: `INSERT INTO ${CHANGE_TABLE} (tenant_id, entity, key, kind, at) VALUES ($1, 'PcThing', gen_random_uuid(), 'create', statement_timestamp() - make_interval(secs => $2))`,
    params: [t, ageSeconds],
  });

const ages = async (t: string) => {
  await changesSettled(db);
  return (await inTenant(db, t, (tx) => readChanges(tx, t, { entities: ["PcThing"], from: "0", limit: 100 }))).rows
    .length;
};

describe("the change log's retention", () => {
  it("deletes every tenant's changes older than the retention and its margin, and keeps the others", async () => {
    const [a, b] = [uniqueTenant("pc"), uniqueTenant("pc")];
    const retention = 600;
    for (const t of [a, b]) {
      await logged(t, retention + PRUNE_MARGIN_SECONDS + 60);
      await logged(t, retention + 60);
      await logged(t, 1);
    }
    expect(await pruneChanges(db, retention)).toBeGreaterThanOrEqual(2);
    expect([await ages(a), await ages(b)]).toEqual([2, 2]);
    // nothing more to take
    await pruneChanges(db, retention);
    expect([await ages(a), await ages(b)]).toEqual([2, 2]);
  });

  it("prunes in batches, however many changes are due", async () => {
    const t = uniqueTenant("pc");
    await db.query({
      sql: `INSERT INTO ${CHANGE_TABLE} (tenant_id, entity, key, kind, at) SELECT $1, 'PcThing', gen_random_uuid(), 'create', statement_timestamp() - interval '400 days' FROM generate_series(1, 12000)`,
      params: [t],
    });
    expect(await pruneChanges(db, 365 * 24 * 3600)).toBeGreaterThanOrEqual(12_000);
    expect(await ages(t)).toBe(0);
  });
});
