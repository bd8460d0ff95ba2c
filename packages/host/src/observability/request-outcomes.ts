/**
 * Sign-ins counted from what the host answered, so the route that answers them needs no metrics
 * code: a sign-in's outcome is its status. (Workflow steps and commits are told by the workflow
 * service itself, whichever way they came: a route, a `$batch` part, an MCP tool.)
 */
import type { Context } from "hono";
import type { HostMetrics, SignInOutcome } from "./host-metrics.js";

function signInOutcome(status: number): SignInOutcome {
  if (status === 200) return "succeeded";
  if (status === 401) return "failed";
  if (status === 429) return "throttled";
  return status < 500 ? "invalid" : "error";
}

/** counts the answered request `c` (taken by `route`, under `basePath`) when it was a sign-in */
export function observeSignIn(c: Context, route: string, metrics: HostMetrics, basePath: string): void {
  if (c.req.method === "POST" && route === `${basePath}/auth/signin`) metrics.signIn(signInOutcome(c.res.status));
}
