/**
 * Mounts what makes the app operable as a service: the request middleware (request ids, the
 * client's address through trusted proxies, a log line per request), ahead of every other one so
 * that it sees every request and every answer (errors and 404s included), and, when configured,
 * `GET /metrics` with statements counted per request (the request's database: requestDatabase).
 */
import type { Database } from "@bizdata/core";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { type HostMetrics, hostMetrics } from "./host-metrics.js";
import { metricsRoute } from "./metrics-route.js";
import { observeRequests } from "./observe-requests.js";
import { clientAddressOf, noProxies, type ProxySettings } from "./trusted-proxies.js";

export interface MetricsSettings {
  /** METRICS: serve `GET /metrics` */
  readonly enabled: boolean;
  /** METRICS_TOKEN: the bearer token `/metrics` asks for; without one it answers this machine only */
  readonly token: string | undefined;
}

export interface ObservabilitySettings {
  /** off when left out (an embedding app decides); on in the reference host */
  readonly metrics?: MetricsSettings;
  /** the reverse proxies whose forwarding header is believed; none when left out */
  readonly proxies?: ProxySettings;
}

/** mounts the request middleware and `/metrics` on `app`; the metrics, when on, for what else counts into them */
export function observeHost<A extends Hono<any>>(
  app: A,
  db: Database,
  settings: ObservabilitySettings,
  logger: Logger,
  basePath: string,
): HostMetrics | undefined {
  const enabled = settings.metrics?.enabled ? settings.metrics : undefined;
  const metrics = enabled && hostMetrics(db);
  const clientAddress = clientAddressOf(settings.proxies ?? noProxies);
  app.use("*", observeRequests({ db, logger, metrics, clientAddress, basePath }));
  if (enabled === undefined || metrics === undefined) return undefined;
  app.get("/metrics", metricsRoute(metrics.registry, enabled.token));
  return metrics;
}
