/**
 * The one place a thrown error becomes an answer (style: errors are values, mapped once), for a
 * host to send and for the service's own tests to read as a host answers. Stage errors carry
 * their status; database errors a client can cause are translated to the same error body; anything
 * else is a 500 whose details go only to the log.
 */
import { databaseErrorOf, isTransientDatabaseError, type Model, ServiceError, tableName } from "@bizdata/core";
import { QuerySyntaxError } from "../syntax/syntax-error.js";
import { jsonResult, type ODataResult } from "./odata-result.js";

export interface ErrorResponse {
  readonly status: number;
  readonly error: ServiceError;
  readonly headers: Record<string, string>;
  /** unexpected: log it with its stack */
  readonly unexpected: boolean;
}

interface DatabaseError {
  code?: string;
  constraint?: string;
  constraint_name?: string;
  table?: string;
  table_name?: string;
}

function fromDatabase(err: DatabaseError, model: Model): ServiceError | undefined {
  const code = err.code ?? "";
  const constraint = err.constraint_name ?? err.constraint ?? "";
  if (code === "23505") {
    const entity = [...model.entities.values()].find((e) => constraint === `${tableName(e)}_nk`);
    if (entity) {
      const key = entity.naturalKey.property;
      return new ServiceError("DuplicateKey", `Another ${entity.name} already has this ${key}.`, key);
    }
    return new ServiceError("DuplicateKey", "A record with this Guid already exists.", "Guid");
  }
  if (code === "23503") {
    return new ServiceError(
      "RecordInUse",
      "The record is referenced by other records or references one that does not exist.",
    );
  }
  if (code === "22012") return new ServiceError("InvalidValue", "The query divides by zero for some record.");
  if (code.startsWith("22")) {
    return new ServiceError(
      "InvalidValue",
      "A value is out of range for its property or for the operation applied to it.",
    );
  }
  if (isTransientDatabaseError(err)) {
    return new ServiceError("ServiceUnavailable", "The database is not available; retry shortly.");
  }
  return undefined;
}

export function errorResponse(thrown: unknown, model: Model): ErrorResponse {
  const err = databaseErrorOf(thrown);
  if (err instanceof ServiceError) return { status: err.status, error: err, headers: err.headers, unexpected: false };
  if (err instanceof QuerySyntaxError) {
    const error = new ServiceError("QuerySyntaxError", err.message, err.option);
    return { status: error.status, error, headers: {}, unexpected: false };
  }
  if (err !== null && typeof err === "object" && "code" in err) {
    const mapped = fromDatabase(err as DatabaseError, model);
    if (mapped) {
      return {
        status: mapped.status,
        error: mapped,
        headers: mapped.status === 503 ? { "Retry-After": "5" } : {},
        unexpected: false,
      };
    }
  }
  const error = new ServiceError("InternalError", "An unexpected error occurred; it has been logged.");
  return { status: error.status, error, headers: {}, unexpected: true };
}

/** the answer to an error as errorResponse maps it: its status and headers, the `{ error }` body */
export const errorResult = ({
  status,
  error,
  headers,
}: Pick<ErrorResponse, "status" | "error" | "headers">): ODataResult =>
  jsonResult(status, JSON.stringify(error.toJSON()), headers);
