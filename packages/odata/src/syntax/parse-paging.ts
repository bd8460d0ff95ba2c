import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import { readNonNegativeInteger } from "./paging.js";
import { BLANK_AFTER_EQUALS, QuerySyntaxError } from "./syntax-error.js";

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

/** Parses `$count`: `true` or `false` (in any case: ABNF strings are case-insensitive), nothing else. */
export function parseCount(text: string, _limits: QueryLimits = defaultQueryLimits): boolean {
  const value = text.toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  const blank = text.startsWith(" ") || text.startsWith("\t");
  throw new QuerySyntaxError("$count", 0, blank ? BLANK_AFTER_EQUALS : "expected true or false");
}

function readPaging(option: string, text: string, max: number): number {
  const reading = readNonNegativeInteger(text, max);
  if (!reading.ok) throw new QuerySyntaxError(option, reading.offset, reading.problem);
  return reading.value;
}
