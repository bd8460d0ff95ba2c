/**
 * What every request of one OData service shares: the database, the model, the read planner
 * (whose statement cache serves all of them) and the base path its URLs start with; and, for
 * the request being served, the unit of work it was given.
 */
import {
  changeSource,
  type Database,
  type Model,
  type TenantTransactionOptions,
  type UnitOfWork,
  type WriteLimits,
} from "@bizdata/core";
import type { ReadPlanner } from "../read/read-planner.js";
import type { ODataRequest } from "./odata-request.js";

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
  /** seconds the change log keeps changes (CHANGE_LOG_RETENTION): an older delta token answers 410 */
  readonly changeRetention: number;
}

/** the change log's retention when a service is not told: 30 days */
export const DEFAULT_CHANGE_RETENTION = 30 * 24 * 3600;

/** what the request being served reads: its unit's store, or the base tables */
export const storeOf = (service: ServiceContext) => service.unit?.session.store;

/**
 * What a write opens its transaction with when it has no unit of work: who makes its changes,
 * for their change log rows (a unit's session already says)
 */
export const writeOptions = (service: ServiceContext, request: ODataRequest): TenantTransactionOptions => ({
  changes: changeSource(service.model, request.author),
});
