/**
 * `/health` is liveness: 200 while the process serves, whatever the database does, so an
 * orchestrator does not restart a host that only waits for PostgreSQL. `/health/ready` is
 * readiness: 200 once the database answers and holds the model's whole schema; 503 with
 * Retry-After while it is unreachable (error-response.ts) or not migrated. With read replicas it
 * tells each one's state and lag: a replica that lags or is down does not make the host unready,
 * for its reads go to the primary meanwhile.
 */
import { type Database, type Model, missingTables, ServiceError } from "@bizdata/core";
import { Hono } from "hono";
import type { Logger } from "pino";
import { serviceTables } from "../schema.js";

export function healthRoutes(db: Database, model: Model, logger: Logger) {
  const routes = new Hono();
  routes.get("/", (c) => c.json({ status: "ok" }));
  routes.get("/ready", async (c) => {
    const missing = await missingTables(db, model, serviceTables);
    if (missing.length > 0) {
      logger.warn({ missing }, "not ready: the database lacks tables of the schema");
      throw new ServiceError(
        "ServiceUnavailable",
        `The database schema is not up to date (${missing.length} tables missing); run \`bizdata migrate\`.`,
      ).withHeaders({ "Retry-After": "5" });
    }
    const replicas = db.routing
      ?.pools()
      .flatMap(({ name, replica }) =>
        replica ? [{ name, state: replica.state, lagSeconds: replica.lagSeconds }] : [],
      );
    return c.json({ status: "ready", ...(replicas && { replicas }) });
  });
  return routes;
}
