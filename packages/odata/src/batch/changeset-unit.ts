/**
 * A `$batch` changeset as one unit of work: its parts run in one tenant transaction, with the
 * lookups `prefetch` made in it shared by every part; a throw rolls all of them back. Its writes'
 * change log rows name the author of `changes`.
 */
import {
  type ChangeSource,
  type Database,
  inTenant,
  PromptCollector,
  type ReadCache,
  type Session,
  type UnitOfWork,
  type WriteBehind,
} from "@bizdata/core";

/**
 * Runs `fn` with the changeset's unit, which it hands to each part. The parts' inserts wait and
 * go together (one statement per table for the changeset). When one of them fails as it goes,
 * its error lands on whichever statement sent it, not on the part that made it: the changeset
 * then runs once more with every insert at once, so the part that fails is the one to blame, as
 * without waiting.
 */
export async function inChangeset<T>(
  db: Database,
  tenantId: string,
  prefetch: (tx: Session) => Promise<ReadCache>,
  fn: (unit: UnitOfWork) => Promise<T>,
  changes?: ChangeSource,
): Promise<T> {
  const run = (deferInserts: boolean, seen: { writes?: WriteBehind }) =>
    inTenant(
      db,
      tenantId,
      async (session, writes) => {
        seen.writes = writes;
        const cache = await prefetch(session);
        return fn({ tenantId, session, cache, prompts: () => new PromptCollector(), annotation: "@userprompts" });
      },
      { deferInserts, changes },
    );
  const first: { writes?: WriteBehind } = {};
  try {
    return await run(true, first);
  } catch (err) {
    if (!first.writes?.failed) throw err;
    return run(false, {});
  }
}
