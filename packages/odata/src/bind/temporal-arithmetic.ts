/**
 * `add` and `sub` over dates, times and durations (OData 4.01 URL conventions 5.1.1.2.1-2): an
 * instant, a date or a time of day moved by a duration stays what it was; two of one kind
 * subtracted give the duration between them; durations add up.
 */
import type { ValueType } from "./bound-expr.js";

type Temporal = "date" | "datetime" | "timeOfDay" | "duration";

const sums: Readonly<Record<string, Temporal>> = {
  "datetime+duration": "datetime",
  "duration+datetime": "datetime",
  "date+duration": "date",
  "duration+date": "date",
  "timeOfDay+duration": "timeOfDay",
  "duration+timeOfDay": "timeOfDay",
  "duration+duration": "duration",
};

const differences: Readonly<Record<string, Temporal>> = {
  "datetime-duration": "datetime",
  "date-duration": "date",
  "timeOfDay-duration": "timeOfDay",
  "duration-duration": "duration",
  "datetime-datetime": "duration",
  "date-date": "duration",
  "timeOfDay-timeOfDay": "duration",
};

/** the type of `left op right` when both are temporal and the operation is defined, else undefined */
export function temporalResult(op: "add" | "sub", left: ValueType, right: ValueType): ValueType | undefined {
  const table = op === "add" ? sums : differences;
  const key = `${left}${op === "add" ? "+" : "-"}${right}`;
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export const isTemporal = (type: ValueType): type is Temporal =>
  type === "date" || type === "datetime" || type === "timeOfDay" || type === "duration";
