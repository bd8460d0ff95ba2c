/**
 * oidc-provider's storage adapter over `bizdata_oauth_state`: every host instance reads what
 * another stored (a code issued by one is redeemed at another, a refresh token rotates anywhere).
 * Expired rows are invisible at once and deleted now and then by the writes themselves.
 */
import { type Database, tableQueries } from "@bizdata/core";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Adapter, AdapterConstructor, AdapterPayload } from "oidc-provider";
import { oauthStateTable as s } from "../auth/auth-tables.js";

/** every this-many writes of a host, expired rows are deleted (no timer to stop on shutdown) */
const SWEEP_EVERY = 200;

const live = or(isNull(s.expiresAt), gt(s.expiresAt, sql`now()`));

export function stateAdapter(db: Database): AdapterConstructor {
  const q = tableQueries(db);
  let writes = 0;

  const read = async (where: ReturnType<typeof and>): Promise<AdapterPayload | undefined> => {
    const [row] = await q
      .select({
        payload: s.payload,
        consumed: sql<number | null>`floor(extract(epoch FROM ${s.consumedAt}))::int`.as("consumed"),
      })
      .from(s)
      .where(and(where, live))
      .limit(1);
    if (row === undefined) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed === null ? payload : { ...payload, consumed: Number(row.consumed) };
  };

  return class StateAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const values = {
        payload: JSON.stringify(payload),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? sql`now() + make_interval(secs => ${expiresIn})` : null,
      };
      await q
        .insert(s)
        .values({ kind: this.kind, id, ...values })
        .onConflictDoUpdate({ target: [s.kind, s.id], set: values });
      if (++writes % SWEEP_EVERY === 0) await q.delete(s).where(lt(s.expiresAt, sql`now()`));
    }

    find(id: string) {
      return read(and(eq(s.kind, this.kind), eq(s.id, id)));
    }

    findByUid(uid: string) {
      return read(and(eq(s.kind, this.kind), eq(s.uid, uid)));
    }

    /** device flow is off: there are no user codes */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await q
        .update(s)
        .set({ consumedAt: sql`now()` })
        .where(and(eq(s.kind, this.kind), eq(s.id, id)));
    }

    async destroy(id: string): Promise<void> {
      await q.delete(s).where(and(eq(s.kind, this.kind), eq(s.id, id)));
    }

    /** the provider calls this on each kind it issues under a grant (codes, refresh tokens, …) */
    async revokeByGrantId(grantId: string): Promise<void> {
      await q.delete(s).where(and(eq(s.kind, this.kind), eq(s.grantId, grantId)));
    }
  };
}
