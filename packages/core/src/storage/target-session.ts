/**
 * `target_session_attrs` for a pool whose sessions are opened read-only (the tenant reads'):
 * such a session reports `default_transaction_read_only = on` from its first message, so
 * postgres.js, asked for a `read-write` server, would refuse every server of a multi-host URL and
 * try them in turn without end. What a URL means by `read-write` is the primary, which is
 * `primary` (not in recovery) whatever the session's own default.
 */

/** the URL's `target_session_attrs`, or the PGTARGETSESSIONATTRS postgres.js falls back on */
function targetOf(url: string, env: NodeJS.ProcessEnv): string | null {
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
  return new URLSearchParams(query).get("target_session_attrs") ?? env.PGTARGETSESSIONATTRS ?? null;
}

/** the option a read-only pool is opened with: `primary` where the URL asks for `read-write` */
export function readOnlySessionTarget(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): { target_session_attrs?: "primary" } {
  return targetOf(url, env) === "read-write" ? { target_session_attrs: "primary" } : {};
}
