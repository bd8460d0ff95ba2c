/**
 * What the PostgreSQL driver's tenant sessions hold at session level between statements
 * (postgres-database.ts): the tenant they were last set to, and how they plan statements. Kept per
 * backend, by process id and cancel key, which a reconnect replaces: a connection that reconnected
 * is set again before its next statement. A driver that does not tell the backend (plain
 * postgres.js; the fork does) still works correctly, setting the session every time.
 *
 * How a session plans is its `plan_cache_mode`. Under `auto`, PostgreSQL's default, a prepared
 * statement is planned for its values at its first five runs and may then run on one generic
 * plan made without them: what a lookup by key wants (planning cost a point read four times its
 * execution), and what a statement whose best plan depends on its values must not get
 * (SqlQuery.planForValues: a path filter's generic plan ran 8x slower). Sessions open with `auto`;
 * a one-statement read switches its session to `force_custom_plan`, and back, only when its
 * statement asks for the other, in the packet with it (together with the tenant when that changes
 * too). A session serving reads of one kind pays nothing; one switching at every read pays a
 * small statement per read, where sending the reads planned for their values unnamed, or between
 * SET LOCALs in a transaction, cost each of them 25-80 µs of PostgreSQL's CPU more than a named
 * statement on a session that plans for values.
 */
import { RAISE_MALLOC_THRESHOLDS } from "./backend-heap.js";
import { plannedForValues, type Statement } from "./database.js";
import { TENANT_SETTING } from "./tenant-policy.js";

/** a connection's backend session, which the fork of postgres.js updates in place when the connection reconnects */
export interface Backend {
  readonly pid: number | null;
  readonly secret: number | null;
}

/** whether what was recorded of a connection's session is of the session it has now (a reconnect brings another) */
export const current = (recorded: Backend | undefined, backend: Backend): boolean =>
  recorded !== undefined && recorded.pid === backend.pid && recorded.secret === backend.secret;

/** a session's `plan_cache_mode`: every run planned for its values, or cached plans as PostgreSQL chooses */
export type Planning = "force_custom_plan" | "auto";

/** the mode every tenant session opens with, a startup parameter */
export const OPENING_PLANNING: Planning = "auto";

/** how `statement` is to be planned */
export const planningOf = (statement: Statement): Planning =>
  plannedForValues(statement) ? "force_custom_plan" : "auto";

/** a session as recorded: its backend, its tenant, and its mode when known */
export interface HeldSession extends Backend {
  readonly tenant: string;
  readonly planning: Planning | undefined;
}

/** sets a session's tenant for the session: at once outside a transaction, when it commits inside one */
const SESSION_TENANT = `SELECT set_config('${TENANT_SETTING}', $1, false)`;
/** sets its tenant and its mode for the session, in one statement */
const SESSION_TENANT_PLANNING = `${SESSION_TENANT}, set_config('plan_cache_mode', $2, false)`;

export function heldSessions() {
  const held = new WeakMap<Backend, HeldSession>();
  /** the sessions that ran RAISE_MALLOC_THRESHOLDS, recorded as `held` records them */
  const tuned = new WeakMap<Backend, Backend>();
  const known = (backend: Backend | undefined): HeldSession | undefined => {
    const session = backend && held.get(backend);
    return backend !== undefined && current(session, backend) ? session : undefined;
  };
  return {
    /** whether the session holds `tenant`, and plans as `planning` says when that is given */
    holds(backend: Backend | undefined, tenant: string, planning?: Planning): boolean {
      const session = known(backend);
      return session?.tenant === tenant && (planning === undefined || session.planning === planning);
    },
    /** whether the session is known to plan every statement for its values */
    plansForValues: (backend: Backend | undefined): boolean => known(backend)?.planning === "force_custom_plan",
    /**
     * Before a set-up is sent: forgets what the session held, and returns the statements that set
     * its tenant, and its mode when `planning` is given and the session is not known to have it
     * (RAISE_MALLOC_THRESHOLDS first on a backend that has not run it), and the session they reach
     * (if the connection reconnects meanwhile, it is another one), for `hold` once they took
     */
    setting(backend: Backend | undefined, tenant: string, planning?: Planning) {
      const before = known(backend);
      if (backend) held.delete(backend);
      const switching = planning !== undefined && before?.planning !== planning;
      const session: HeldSession | null = backend
        ? { pid: backend.pid, secret: backend.secret, tenant, planning: planning ?? before?.planning }
        : null;
      const set: Statement = switching
        ? { sql: SESSION_TENANT_PLANNING, params: [tenant, planning] }
        : { sql: SESSION_TENANT, params: [tenant] };
      const tunedAlready = backend !== undefined && current(tuned.get(backend), backend);
      return { session, setup: tunedAlready ? [set] : [RAISE_MALLOC_THRESHOLDS, set] };
    },
    hold(backend: Backend | undefined, session: HeldSession | null) {
      if (!backend || !session) return;
      // a set-up sent while the connection was still opening reached the session it opened
      const reached = session.pid === null ? { ...session, pid: backend.pid, secret: backend.secret } : session;
      if (reached.pid === null) return;
      held.set(backend, reached);
      tuned.set(backend, reached);
    },
  };
}
