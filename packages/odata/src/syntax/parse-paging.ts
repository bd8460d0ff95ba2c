import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import { readNonNegativeInteger } from "./paging.js";
import { QuerySyntaxError } from "./syntax-error.js";

/**
 * Parses `$top`: a non-negative integer no larger than `maxPageSize`.
 *
 * @example parseTop("50") // 50
 */
export function parseTop(text: string, limits: QueryLimits = defaultQueryLimits): number {
  return readPaging("$top", text, limits.maxPageSize);
}

/** Parses `$skip`: a non-negative integer no larger than `Number.MAX_SAFE_INTEGER`. */
export function parseSkip(text: string, _limits: QueryLimits = defaultQueryLimits): number {
  return readPaging("$skip", text, Number.MAX_SAFE_INTEGER);
}

/** Parses `$count`: `true` or `false`, nothing else. */
export function parseCount(text: string, _limits: QueryLimits = defaultQueryLimits): boolean {
  let start = 0;
  let end = text.length;
  while (start < end && isBlank(text.charCodeAt(start))) start++;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  const value = text.slice(start, end);
  if (value === "true") return true;
  if (value === "false") return false;
  throw new QuerySyntaxError("$count", start, "expected true or false");
}

/** space or tab, the only blanks a query option may contain */
function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

function readPaging(option: string, text: string, max: number): number {
  const reading = readNonNegativeInteger(text, max);
  if (!reading.ok) throw new QuerySyntaxError(option, reading.offset, reading.problem);
  return reading.value;
}
