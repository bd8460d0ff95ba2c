/**
 * The `target_session_attrs` the pools are opened with. What a URL means by `read-write` is the
 * primary, and postgres.js 3.4.9 tells a read-write server by the `default_transaction_read_only`
 * a session reports: a hot standby of PostgreSQL 14 or later reports it off (it refuses writes by
 * being in recovery), so postgres.js takes it for read-write and the writes fail there; and the
 * tenant reads' sessions, opened read-only, report it on from their first message, so asked for
 * read-write postgres.js refuses every server and tries them in turn without end. `primary` is
 * told by `in_hot_standby`, right for both. A server read-only by its setting, not in recovery,
 * counts as a primary then: its writes fail with 25006, which replaces the pools
 * (leave-read-only-servers.ts), and the next pool starts at the next host (multi-host-url.ts).
 */

/** the URL's `target_session_attrs`, or the PGTARGETSESSIONATTRS postgres.js falls back on */
function targetOf(url: string, env: NodeJS.ProcessEnv): string | null {
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
  return new URLSearchParams(query).get("target_session_attrs") ?? env.PGTARGETSESSIONATTRS ?? null;
}

/** the option every pool is opened with: `primary` where the URL asks for `read-write` */
export function sessionTarget(url: string, env: NodeJS.ProcessEnv = process.env): { target_session_attrs?: "primary" } {
  return targetOf(url, env) === "read-write" ? { target_session_attrs: "primary" } : {};
}
