/**
 * The canonical functions `$filter`, `$orderby` and `$compute` accept (OData 4.01 URL
 * conventions 5.1.1.5-5.1.1.8): their parameter types and result type. The compiler maps each to
 * PostgreSQL (compile/function-sql.ts).
 */
import type { ValueType } from "./bound-expr.js";

type Param = ValueType | "numeric" | "temporal";

export interface FunctionSignature {
  readonly params: readonly Param[];
  /** how many trailing parameters may be left out */
  readonly optional?: number;
  /** the result type; "arg0" = the type of the first argument */
  readonly returns: ValueType | "arg0";
}

export const functions: Readonly<Record<string, FunctionSignature>> = {
  contains: { params: ["string", "string"], returns: "boolean" },
  startswith: { params: ["string", "string"], returns: "boolean" },
  endswith: { params: ["string", "string"], returns: "boolean" },
  length: { params: ["string"], returns: "integer" },
  indexof: { params: ["string", "string"], returns: "integer" },
  substring: { params: ["string", "integer", "integer"], optional: 1, returns: "string" },
  tolower: { params: ["string"], returns: "string" },
  toupper: { params: ["string"], returns: "string" },
  trim: { params: ["string"], returns: "string" },
  concat: { params: ["string", "string"], returns: "string" },
  year: { params: ["temporal"], returns: "integer" },
  month: { params: ["temporal"], returns: "integer" },
  day: { params: ["temporal"], returns: "integer" },
  hour: { params: ["datetime"], returns: "integer" },
  minute: { params: ["datetime"], returns: "integer" },
  second: { params: ["datetime"], returns: "integer" },
  round: { params: ["numeric"], returns: "arg0" },
  floor: { params: ["numeric"], returns: "arg0" },
  ceiling: { params: ["numeric"], returns: "arg0" },
  now: { params: [], returns: "datetime" },
};

export const accepts = (param: Param, type: ValueType): boolean =>
  type === "null" ||
  param === type ||
  (param === "numeric" && (type === "integer" || type === "decimal")) ||
  (param === "temporal" && (type === "date" || type === "datetime")) ||
  (param === "decimal" && type === "integer");
