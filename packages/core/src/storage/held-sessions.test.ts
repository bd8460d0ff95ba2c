/**
 * What the driver sends to bring a tenant session to the tenant and the plan mode a statement
 * needs (held-sessions.ts): nothing when the session is known to hold both, one statement when it
 * holds another tenant or mode, and the backend's heap statement first on a backend new to it.
 */
import { describe, expect, it } from "vitest";
import { RAISE_MALLOC_THRESHOLDS } from "./backend-heap.js";
import { toQuery } from "./database.js";
import { type Backend, heldSessions, type Planning, planningOf } from "./held-sessions.js";

const backend = (pid: number | null, secret: number | null = 7): { pid: number | null; secret: number | null } => ({
  pid,
  secret,
});

/** what `setting` sends, as text and parameters, after holding what it set */
function set(sessions: ReturnType<typeof heldSessions>, at: Backend | undefined, tenant: string, planning?: Planning) {
  const { session, setup } = sessions.setting(at, tenant, planning);
  sessions.hold(at, session);
  return setup.map((s) => {
    const q = toQuery(s);
    return q.sql === RAISE_MALLOC_THRESHOLDS.sql ? "heap" : q.params;
  });
}

describe("a tenant session's state", () => {
  it("is asked of each statement: planned for its values when it says so, else on cached plans", () => {
    expect(planningOf({ sql: "SELECT 1", params: [] })).toBe("auto");
    expect(planningOf({ sql: "SELECT 1", params: [], planForValues: false })).toBe("auto");
    expect(planningOf({ sql: "SELECT 1", params: [], planForValues: true })).toBe("force_custom_plan");
  });

  /** a set-up: the tenant, and the mode when one is asked for */
  type Asked = readonly [string, Planning?];
  it.each<[string, readonly Asked[], Asked, unknown[]]>([
    ["a new backend: the heap, the tenant and the mode", [], ["t1", "auto"], ["heap", ["t1", "auto"]]],
    [
      "the same tenant in the other mode: the mode again, with the tenant",
      [["t1", "auto"]],
      ["t1", "force_custom_plan"],
      [["t1", "force_custom_plan"]],
    ],
    [
      "another tenant in the same mode: the tenant alone",
      [["t1", "force_custom_plan"]],
      ["t2", "force_custom_plan"],
      [["t2"]],
    ],
    ["a transaction's tenant, which leaves the mode as it was", [["t1", "force_custom_plan"]], ["t2"], [["t2"]]],
    [
      "a mode after a tenant set without one on a new backend: the mode is not known",
      [["t1"]],
      ["t1", "auto"],
      [["t1", "auto"]],
    ],
  ])("sets, for %s", (_, before, [tenant, planning], expected) => {
    const sessions = heldSessions();
    const at = backend(41);
    for (const [t, p] of before) set(sessions, at, t, p);
    expect(set(sessions, at, tenant, planning)).toEqual(expected);
  });

  it("holds the tenant and the mode set last, for that backend only", () => {
    const sessions = heldSessions();
    const [one, two] = [backend(41), backend(42)];
    set(sessions, one, "t1", "force_custom_plan");
    expect(sessions.holds(one, "t1")).toBe(true);
    expect(sessions.holds(one, "t1", "force_custom_plan")).toBe(true);
    expect(sessions.holds(one, "t1", "auto")).toBe(false);
    expect(sessions.holds(one, "t2", "force_custom_plan")).toBe(false);
    expect(sessions.plansForValues(one)).toBe(true);
    expect(sessions.holds(two, "t1")).toBe(false);
    expect(sessions.plansForValues(two)).toBe(false);
    // a transaction's tenant keeps the mode the session has
    set(sessions, one, "t2");
    expect(sessions.holds(one, "t2", "force_custom_plan")).toBe(true);
  });

  it("forgets a session while its set-up is out, and one that reconnected", () => {
    const sessions = heldSessions();
    const at = backend(41);
    set(sessions, at, "t1", "auto");
    // sent but not held (the statement behind it failed): not known to hold anything
    sessions.setting(at, "t1", "force_custom_plan");
    expect(sessions.holds(at, "t1")).toBe(false);
    expect(set(sessions, at, "t1", "force_custom_plan")).toEqual([["t1", "force_custom_plan"]]);
    // the fork updates the backend in place when the connection reconnects: a new session, heap again
    Object.assign(at, { pid: 99, secret: 8 });
    expect(sessions.holds(at, "t1")).toBe(false);
    expect(sessions.plansForValues(at)).toBe(false);
    expect(set(sessions, at, "t1", "force_custom_plan")).toEqual(["heap", ["t1", "force_custom_plan"]]);
  });

  it("sets everything every time for a driver that does not tell the backend", () => {
    const sessions = heldSessions();
    expect(set(sessions, undefined, "t1", "auto")).toEqual(["heap", ["t1", "auto"]]);
    expect(sessions.holds(undefined, "t1")).toBe(false);
    expect(set(sessions, undefined, "t1", "auto")).toEqual(["heap", ["t1", "auto"]]);
  });

  it("records a set-up sent while the connection was opening as of the session it opened", () => {
    const sessions = heldSessions();
    const at = backend(null, null);
    const { session } = sessions.setting(at, "t1", "auto");
    Object.assign(at, { pid: 41, secret: 7 });
    sessions.hold(at, session);
    expect(sessions.holds(at, "t1", "auto")).toBe(true);
  });
});
