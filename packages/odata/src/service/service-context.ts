/**
 * What every request of one OData service shares: the database, the model, the read planner
 * (whose statement cache serves all of them) and the base path its URLs start with.
 */
import type { Database, Model, WriteLimits } from "@bizdata/core";
import type { ReadPlanner } from "../read/read-planner.js";
import type { RequestScope } from "./request-scope.js";

export interface ServiceContext {
  readonly db: Database;
  readonly model: Model;
  readonly planner: ReadPlanner;
  /** `/api` by default; normalized (normalizeBasePath) */
  readonly basePath: string;
  /** the scope the request being served runs in (a `$batch` changeset, a workflow step), if any */
  readonly scope?: RequestScope;
  /** bounds on what one write may hold; core's defaults when left out */
  readonly writeLimits?: WriteLimits;
}

/** the workflow whose staged state a request in `scope` reads, as RunArgs want it */
export const stagedArgs = (scope: RequestScope | undefined): { workflowId?: string } => {
  const workflowId = scope?.workflowId;
  return workflowId === undefined ? {} : { workflowId };
};
