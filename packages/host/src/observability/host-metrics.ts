/**
 * The host's Prometheus metrics (api-conventions: Metrics), in a registry of the app's own so two
 * apps in one process never share or collide: HTTP requests by route pattern, method and status
 * with their latency, statements per request, the database pools (the primary's, and each read
 * replica's with its lag and state), workflow steps and commits by outcome, sign-in attempts by
 * outcome, and Node's default process metrics.
 */
import { BoundedMap, type Database, type PoolReport, type PoolStats, type ReplicaState } from "@bizdata/core";
import type { CommitResult, StepOutcome, WorkflowObserver } from "@bizdata/workflow";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export interface RequestObservation {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  readonly statements: number;
}

export type SignInOutcome = "succeeded" | "failed" | "throttled" | "invalid" | "error";

export type HostMetrics = ReturnType<typeof hostMetrics>;

export function hostMetrics(db: Database) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "bizdata_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers,
  });
  const duration = new Histogram({
    name: "bizdata_http_request_duration_seconds",
    help: "Time from a request's arrival to its response, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const statements = new Histogram({
    name: "bizdata_http_request_statements",
    help: "Database statements run for one HTTP request ($batch parts included), by route pattern.",
    labelNames: ["route"] as const,
    buckets: [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144],
    registers,
  });
  /** each pool's report: the primary's alone unless reads go to replicas */
  const pools = (): readonly PoolReport[] => db.routing?.pools() ?? [{ name: "primary", stats: db.stats(), reads: 0 }];
  /** a gauge per pool, labelled `pool` (primary, replica1, …), without a series where `read` knows no value */
  const perPool = (name: string, help: string, read: (report: PoolReport) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const report of pools()) {
          const value = read(report);
          if (value !== undefined) this.set({ pool: report.name }, value);
        }
      },
    });
  const pool = (name: string, help: string, read: (stats: PoolStats) => number) =>
    perPool(`bizdata_db_pool_${name}`, `${help}, by pool (primary, replica1, …).`, (report) => read(report.stats));
  pool("size", "Connections the database pool uses at once (DATABASE_POOL_SIZE)", (p) => p.size);
  pool("busy", "Database operations (a statement or a whole transaction) holding a connection", (p) => p.busy);
  pool("idle", "Pool connections not in use (opened or not yet)", (p) => p.size - p.busy);
  pool("waiting", "Database operations waiting for a connection", (p) => p.waiting);
  if (db.routing !== undefined) {
    new Counter({
      name: "bizdata_db_reads_total",
      help: "One-statement tenant reads (entity GETs) by the pool that answered them: primary or a read replica.",
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const report of pools()) this.inc({ pool: report.name }, report.reads);
      },
    });
    new Counter({
      name: "bizdata_db_replica_fallbacks_total",
      help: "Reads sent to a read replica that it failed (gone, a conflict with recovery, no free connection) and the primary answered.",
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const { name, replica } of pools()) if (replica) this.inc({ pool: name }, replica.fallbacks);
      },
    });
    perPool(
      "bizdata_db_replica_lag_seconds",
      "At most how far a read replica is behind the primary, as of its last check; absent while unknown.",
      (report) => report.replica?.lagSeconds,
    );
    perPool(
      "bizdata_db_replica_up",
      "1 while reads may go to a read replica (fresh within DATABASE_READ_MAX_LAG_MS), 0 while it is skipped (lagging, down, not a standby).",
      (report) => report.replica && Number(report.replica.state === ("up" satisfies ReplicaState)),
    );
  }
  const workflowSteps = new Counter({
    name: "bizdata_workflow_steps_total",
    help: "Workflow steps (requests with Workflow-Id) by outcome: advanced the index, index conflict (409), failed.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const commits = new Counter({
    name: "bizdata_workflow_commits_total",
    help: "Workflow commits by outcome: committed, questionPending, rejected (save logic), conflict (changed in the main data), failed.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const signIns = new Counter({
    name: "bizdata_signin_attempts_total",
    help: "Sign-in attempts by outcome: succeeded, failed (wrong credentials), throttled (429), invalid (bad request), error.",
    labelNames: ["outcome"] as const,
    registers,
  });

  /**
   * the three series one kind of request updates, looked up once per route, method and status:
   * prom-client finds a series by hashing its labels on every update otherwise, which cost a
   * point read more than its counting. Routes are patterns (route-pattern.ts), so the kinds are
   * few; the bound only guards against a defect that made them many.
   */
  const seriesFor = (route: string, method: string, status: string) => ({
    requests: requests.labels(route, method, status),
    duration: duration.labels(route, method, status),
    statements: statements.labels(route),
  });
  const series = new BoundedMap<string, ReturnType<typeof seriesFor>>(2000);
  const seriesOf = (route: string, method: string, status: number) =>
    series.getOrMake(`${status} ${method} ${route}`, () => seriesFor(route, method, String(status)));

  return {
    registry,
    request({ method, route, status, seconds, statements: count }: RequestObservation) {
      const kind = seriesOf(route, method, status);
      kind.requests.inc();
      kind.duration.observe(seconds);
      kind.statements.observe(count);
    },
    /** what the workflow service tells (WorkflowObserver) */
    workflows: {
      step: (outcome: StepOutcome) => workflowSteps.inc({ outcome }),
      commit: (outcome: CommitResult) => commits.inc({ outcome }),
    } satisfies WorkflowObserver,
    signIn: (outcome: SignInOutcome) => signIns.inc({ outcome }),
  };
}
