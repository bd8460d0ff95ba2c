/**
 * The canonical functions `$filter`, `$orderby` and `$compute` accept (OData 4.01 URL
 * conventions 5.1.1.5-5.1.1.8): their parameter types and result type. The compiler maps each to
 * PostgreSQL (compile/function-sql.ts).
 */
import type { ValueType } from "./bound-expr.js";

/** `temporal`: a date or an instant; `clock`: an instant or a time of day */
type Param = ValueType | "numeric" | "temporal" | "clock";

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
  hour: { params: ["clock"], returns: "integer" },
  minute: { params: ["clock"], returns: "integer" },
  second: { params: ["clock"], returns: "integer" },
  fractionalseconds: { params: ["clock"], returns: "decimal" },
  date: { params: ["datetime"], returns: "date" },
  time: { params: ["datetime"], returns: "timeOfDay" },
  totalseconds: { params: ["duration"], returns: "decimal" },
  round: { params: ["numeric"], returns: "arg0" },
  floor: { params: ["numeric"], returns: "arg0" },
  ceiling: { params: ["numeric"], returns: "arg0" },
  now: { params: [], returns: "datetime" },
};

/** a parameter type in words, for messages */
export const describeParam = (param: Param): string =>
  param === "temporal"
    ? "a date or date-time"
    : param === "clock"
      ? "a date-time or time of day"
      : param === "numeric"
        ? "a number"
        : param;

export const accepts = (param: Param, type: ValueType): boolean =>
  type === "null" ||
  param === type ||
  (param === "numeric" && (type === "integer" || type === "decimal")) ||
  (param === "temporal" && (type === "date" || type === "datetime")) ||
  (param === "clock" && (type === "datetime" || type === "timeOfDay")) ||
  (param === "decimal" && type === "integer");
