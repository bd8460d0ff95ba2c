/**
 * A reader that follows the change log from watermark to watermark (change-reads.ts) sees every
 * committed change exactly once and none that rolled back, however writers' transactions overlap
 * and in whatever order they commit. PostgreSQL only: PGlite runs one transaction at a time, so
 * there nothing overlaps.
 *
 * Each transaction writes first (its insert sent at once, so it holds its id from then on) and
 * commits or rolls back later, at a step the schedule picks; the reader reads between any steps.
 * What a reader may not do is take a change of a transaction that started later but committed
 * earlier and then move past an earlier one still running: the test would see that one missed.
 */
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { PromptCollector } from "../prompts/prompt-collector.js";
import type { Database } from "../storage/database.js";
import { migrate } from "../storage/migrate.js";
import { inTenant } from "../storage/tenant-scope.js";
import { createRecords } from "../write/write-record.js";
import { readChanges } from "./change-reads.js";
import { changeSource } from "./change-source.js";

const onPostgres = Boolean(process.env.DATABASE_URL);

const Item = entity("CoItem", { naturalKey: "Guid", fields: { Code: text() } });
const model = defineModel([Item]);

let db: Database;
beforeAll(async () => {
  if (!onPostgres) return;
  db = await testDatabase();
  await migrate(db, model);
});

class RolledBack extends Error {}

/** a writer's transaction, written and waiting to be ended */
interface Open {
  readonly keys: string[];
  end(commit: boolean): Promise<void>;
}

/** opens a transaction of `tenantId` that writes `count` records now and ends when told */
async function open(tenantId: string, count: number): Promise<Open> {
  let written!: (keys: string[]) => void;
  let failed!: (err: unknown) => void;
  const keys = new Promise<string[]>((resolve, reject) => {
    written = resolve;
    failed = reject;
  });
  let release!: (commit: boolean) => void;
  const gate = new Promise<boolean>((resolve) => {
    release = resolve;
  });
  const done = inTenant(
    db,
    tenantId,
    async (session) => {
      const ctx = {
        session,
        model,
        tenant: { id: tenantId, features: new Set<string>() },
        prompts: new PromptCollector(),
      };
      const outcomes = await createRecords(
        ctx,
        Item,
        Array.from({ length: count }, (_, i) => ({ Code: `c${i}` })),
      );
      written(outcomes.map((o) => o.guid!));
      if (!(await gate)) throw new RolledBack();
    },
    // the insert goes at once: the transaction holds its id while others commit
    { deferInserts: false, changes: changeSource(model, { actor: "writer" }) },
  ).catch((err: unknown) => {
    if (!(err instanceof RolledBack)) failed(err);
  });
  const opened = await keys;
  return {
    keys: opened,
    end: async (commit) => {
      release(commit);
      await done;
    },
  };
}

/** a reader that reads the log from watermark to watermark, keeping every key it was given */
function reader(tenantId: string) {
  let from = "0";
  const seen: string[] = [];
  return {
    seen,
    async read() {
      const page = await inTenant(
        db,
        tenantId,
        (tx) => readChanges(tx, tenantId, { entities: [Item.name], from, limit: 100_000 }),
        { readOnly: true },
      );
      seen.push(...page.rows.map((r) => r.key));
      from = page.to;
    },
  };
}

/** reads until `expected` keys are seen, or a few seconds passed (another test's transaction may hold the watermark) */
async function settle(follow: ReturnType<typeof reader>, expected: number) {
  const until = Date.now() + 10_000;
  await follow.read();
  while (follow.seen.length < expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    await follow.read();
  }
}

type Step = { readonly kind: "read" } | { readonly kind: "step"; readonly writer: number };

describe.runIf(onPostgres)("a reader of the change log", () => {
  it("does not see a change committed by a later transaction while an earlier one runs, and misses none", async () => {
    const tenantId = uniqueTenant("co");
    const follow = reader(tenantId);
    const early = await open(tenantId, 1);
    const late = await open(tenantId, 1);
    await late.end(true);
    await follow.read();
    // the early transaction still runs: the later one's change waits for it
    expect(follow.seen).toEqual([]);
    await early.end(true);
    await settle(follow, 2);
    expect(follow.seen.sort()).toEqual([...early.keys, ...late.keys].sort());
  });

  it("sees every committed change exactly once and none rolled back, however transactions overlap", async () => {
    const writers = fc.array(fc.record({ count: fc.integer({ min: 1, max: 3 }), commit: fc.boolean() }), {
      minLength: 1,
      maxLength: 5,
    });
    const schedule = writers.chain((ws) =>
      fc
        .array(
          fc.oneof(
            fc.constant<Step>({ kind: "read" }),
            fc.integer({ min: 0, max: ws.length - 1 }).map((writer): Step => ({ kind: "step", writer })),
          ),
          { maxLength: 20 },
        )
        .map((steps) => ({ writers: ws, steps })),
    );
    await fc.assert(
      fc.asyncProperty(schedule, async ({ writers: ws, steps }) => {
        const tenantId = uniqueTenant("co");
        const follow = reader(tenantId);
        const opened = new Map<number, Open>();
        const ended = new Set<number>();
        const committed: string[] = [];
        const rolledBack: string[] = [];
        const end = async (writer: number) => {
          const tx = opened.get(writer)!;
          ended.add(writer);
          await tx.end(ws[writer]!.commit);
          (ws[writer]!.commit ? committed : rolledBack).push(...tx.keys);
        };
        // a writer's first step opens it (and writes), its second ends it
        for (const step of steps) {
          if (step.kind === "read") await follow.read();
          else if (!opened.has(step.writer)) opened.set(step.writer, await open(tenantId, ws[step.writer]!.count));
          else if (!ended.has(step.writer)) await end(step.writer);
        }
        for (const writer of opened.keys()) if (!ended.has(writer)) await end(writer);
        await settle(follow, committed.length);
        expect([...follow.seen].sort()).toEqual([...committed].sort());
        for (const key of rolledBack) expect(follow.seen).not.toContain(key);
      }),
      { numRuns: 40 },
    );
  });
});
