/**
 * What every request of one OData service shares: the database, the model, the read planner
 * (whose statement cache serves all of them) and the base path its URLs start with.
 */
import type { Database, Model } from "@bizdata/core";
import type { ReadPlanner } from "../read/read-planner.js";
import { currentScope } from "./request-scope.js";

export interface ServiceContext {
  readonly db: Database;
  readonly model: Model;
  readonly planner: ReadPlanner;
  /** `/api` by default; normalized (normalizeBasePath) */
  readonly basePath: string;
}

/** the workflow whose staged state the current request reads, as RunArgs want it */
export const stagedArgs = (): { workflowId?: string } => {
  const workflowId = currentScope()?.workflowId;
  return workflowId === undefined ? {} : { workflowId };
};
