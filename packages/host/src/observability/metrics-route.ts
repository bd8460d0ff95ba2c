/**
 * `GET /metrics` (api-conventions: Metrics). With `METRICS_TOKEN` it answers whoever sends that
 * bearer token; without one, only callers on this machine: a loopback peer that is not
 * relaying for someone else (no `Forwarded`/`X-Forwarded-For`, so a reverse proxy on the same
 * machine does not publish it), or in-process callers. Anyone else gets the 404 of a path that
 * does not exist, so the endpoint is not advertised.
 */
import { ServiceError } from "@bizdata/core";
import type { Context } from "hono";
import type { Registry } from "prom-client";
import { bearerSecretMatches } from "../auth/bearer-secret.js";
import { peerAddress } from "./peer-address.js";
import { addressMatcher } from "./trusted-proxies.js";

const isLoopback = addressMatcher(["loopback"]);

function fromThisMachine(c: Context): boolean {
  if (c.req.header("forwarded") !== undefined || c.req.header("x-forwarded-for") !== undefined) return false;
  const peer = peerAddress(c);
  return peer === undefined || isLoopback(peer);
}

export function metricsRoute(registry: Registry, token: string | undefined) {
  return async (c: Context) => {
    if (token !== undefined) {
      if (!bearerSecretMatches(c.req.header("authorization"), token)) {
        throw new ServiceError("Unauthorized", "Send the metrics token as a bearer token.").withHeaders({
          "WWW-Authenticate": 'Bearer realm="metrics"',
        });
      }
    } else if (!fromThisMachine(c)) {
      throw new ServiceError("NotFound", `No resource at ${c.req.path}.`);
    }
    return c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType });
  };
}
