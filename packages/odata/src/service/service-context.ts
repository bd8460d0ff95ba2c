/**
 * What every request of one OData service shares: the database, the model, the read planner
 * (whose statement cache serves all of them) and the base path its URLs start with; and, for
 * the request being served, the unit of work it was given.
 */
import type { Database, Model, UnitOfWork, WriteLimits } from "@bizdata/core";
import type { ReadPlanner } from "../read/read-planner.js";

export interface ServiceContext {
  readonly db: Database;
  readonly model: Model;
  readonly planner: ReadPlanner;
  /** `/api` by default; normalized (normalizeBasePath) */
  readonly basePath: string;
  /**
   * The unit of work the request being served runs in (a `$batch` changeset, a workflow step),
   * if it was given one: its transaction, its store, its lookups and its prompts
   */
  readonly unit?: UnitOfWork | undefined;
  /** bounds on what one write may hold; core's defaults when left out */
  readonly writeLimits?: WriteLimits;
}

/** what the request being served reads: its unit's store, or the base tables */
export const storeOf = (service: ServiceContext) => service.unit?.session.store;
