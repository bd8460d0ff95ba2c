/**
 * The address at the other end of the connection. Requests made in-process (`app.request`, a
 * `$batch` part replayed through the app) have no socket and so no peer.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

interface NodeBindings {
  readonly incoming?: { readonly socket?: unknown };
}

export function peerAddress(c: Context): string | undefined {
  // where @hono/node-server puts the request (getConnInfo throws without it, and a throw costs
  // far more than the rest of the request's bookkeeping)
  const env = c.env as (NodeBindings & { readonly server?: NodeBindings }) | undefined;
  const bindings = env?.server ?? env;
  return bindings?.incoming?.socket === undefined ? undefined : getConnInfo(c).remote.address;
}
