/**
 * The OData service over a model and a database, as a function from a plain request to a plain
 * result: what a host wires to its routes after authenticating the caller. Errors are thrown as
 * `ServiceError`s (and `QuerySyntaxError`s) for the host to map to HTTP in one place.
 */
import { type Database, type Model, ServiceError, type UnitOfWork, type WriteLimits } from "@bizdata/core";
import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import { ReadPlanner } from "../read/read-planner.js";
import { createEntity, deleteEntity, readEntities, updateEntity } from "./entity-requests.js";
import type { ODataRequest } from "./odata-request.js";
import { normalizeBasePath, type ODataResult } from "./odata-result.js";
import { importPath } from "./operation-import-path.js";
import { DEFAULT_CHANGE_RETENTION, type ServiceContext } from "./service-context.js";

export interface ODataServiceOptions {
  readonly db: Database;
  readonly model: Model;
  /** where the service is mounted; every URL it writes (Location, next links) starts with it. Default `/api` */
  readonly basePath?: string;
  readonly queryLimits?: QueryLimits;
  /** bounds on what one write may hold (items per owned collection); defaultWriteLimits when left out */
  readonly writeLimits?: WriteLimits;
  /**
   * Seconds the change log keeps changes (CHANGE_LOG_RETENTION, default 30 days): a delta link
   * older than that answers 410 DeltaTokenExpired
   */
  readonly changeRetention?: number;
}

export interface ODataService extends ServiceContext {
  /**
   * Answers one request: GET reads and Read methods, POST creates and Modify methods, PATCH,
   * DELETE. In `unit` when given (a changeset's, a workflow step's: its transaction, its store,
   * its prompts), else in a transaction of its own.
   */
  handle(request: ODataRequest, unit?: UnitOfWork): Promise<ODataResult>;
}

/**
 * @example
 * const service = createODataService({ db, model, basePath: "/api" });
 * const result = await service.handle(odataRequestOf(request, { basePath: service.basePath, tenantId, bodyLimits }));
 * return new Response(result.body ?? null, { status: result.status, headers: result.headers });
 */
export function createODataService(options: ODataServiceOptions): ODataService {
  const context: ServiceContext = {
    db: options.db,
    model: options.model,
    planner: new ReadPlanner(options.model, { limits: options.queryLimits ?? defaultQueryLimits }),
    basePath: normalizeBasePath(options.basePath ?? "/api"),
    ...(options.writeLimits && { writeLimits: options.writeLimits }),
    changeRetention: options.changeRetention ?? DEFAULT_CHANGE_RETENTION,
  };
  return {
    ...context,
    async handle(written, unit) {
      const imported = importPath(context.model, written.path);
      const request = imported ? { ...written, path: imported.path } : written;
      try {
        return await dispatch(request, unit);
      } catch (error) {
        throw imported ? imported.asWritten(error) : error;
      }
    },
  };

  function dispatch(request: ODataRequest, unit: UnitOfWork | undefined): Promise<ODataResult> {
    const service =
      request.db === undefined && unit === undefined ? context : { ...context, db: request.db ?? context.db, unit };
    switch (request.method) {
      case "GET":
        return readEntities(service, request);
      case "POST":
        return createEntity(service, request);
      case "PATCH":
        return updateEntity(service, request);
      case "DELETE":
        return deleteEntity(service, request);
      default:
        throw new ServiceError("MethodNotAllowed", `${request.method} is not an operation of this service.`);
    }
  }
}
