import { ServiceError } from "@bizdata/core";
import type { BodyLimits } from "../limits.js";
import { isExactNumber } from "./exact-number.js";
import { jsonPathAt } from "./json-path.js";
import { findJsonSyntaxError } from "./json-syntax-error.js";
import {
  closingQuote,
  DOT,
  LBRACE,
  LBRACKET,
  LOWER_E,
  MINUS,
  NINE,
  PLUS,
  QUOTE,
  RBRACE,
  RBRACKET,
  UPPER_E,
  ZERO,
} from "./json-text.js";

/**
 * Parses a JSON request body, refusing what JSON.parse would accept but the service must not:
 * nesting deeper than `maxDepth` (400 JsonTooDeep, checked before JSON.parse so a deep body cannot
 * exhaust the stack here or in any later walk) and number literals a JS number cannot carry
 * exactly (400 NumberNotExact, target = the value's path; api-conventions: never silently
 * rounded). Text that is not JSON is 400 InvalidJson naming the character position.
 *
 * Property names stay own data properties: JSON.parse defines "__proto__" as an ordinary own key
 * and never touches a prototype, so validation later rejects it like any unknown property.
 */
export function parseJson(text: string, limits: Pick<BodyLimits, "maxDepth">): unknown {
  const inexactAt = scan(text, limits.maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw invalidJson(text, cause);
  }
  // Reported only for valid JSON, so a syntax error is never mistaken for a bad number.
  if (inexactAt >= 0) throw numberNotExact(text, inexactAt);
  return value;
}

/**
 * One linear pass over the text, outside strings: counts bracket depth (throwing when it passes
 * the limit) and checks each number literal. Returns where the first inexact number starts, or -1.
 * Outside strings only number literals contain digits or '-', so no full tokenizer is needed.
 */
function scan(text: string, maxDepth: number): number {
  let depth = 0;
  let inexactAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
    } else if (c === LBRACE || c === LBRACKET) {
      if (++depth > maxDepth) throw tooDeep(maxDepth, i);
    } else if (c === RBRACE || c === RBRACKET) {
      depth--;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      let end = c === MINUS ? i + 1 : i;
      let digits = 0;
      let plain = true;
      for (; end < text.length; end++) {
        const d = text.charCodeAt(end);
        if (d >= ZERO && d <= NINE) digits++;
        else if (d === UPPER_E || d === LOWER_E || d === PLUS || d === MINUS) plain = false;
        else if (d !== DOT) break;
      }
      // Up to 15 significant digits without an exponent always round-trip through a double
      // (DBL_DIG), which covers nearly every real number literal without the string work below.
      if (inexactAt < 0 && !(plain && digits <= 15) && !isExactNumber(text.slice(i, end))) inexactAt = i;
      i = end - 1;
    }
  }
  return inexactAt;
}

function tooDeep(maxDepth: number, position: number): ServiceError {
  return new ServiceError(
    400,
    "JsonTooDeep",
    `The request body nests arrays and objects deeper than the limit of ${maxDepth} levels (position ${position}).`,
  );
}

function invalidJson(text: string, cause: unknown): unknown {
  const found = findJsonSyntaxError(text);
  // JSON.parse failed on grammatical JSON: not the client's fault (e.g. out of memory), so pass it on.
  if (found === undefined) return cause;
  const error = new ServiceError(
    400,
    "InvalidJson",
    `The request body is not valid JSON: at position ${found.position}, ${found.problem}.`,
  );
  error.cause = cause;
  return error;
}

function numberNotExact(text: string, position: number): ServiceError {
  const literal = /-?[0-9.eE+-]*/y;
  literal.lastIndex = position;
  const shown = literal.exec(text)![0];
  const quoted = shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
  return new ServiceError(
    400,
    "NumberNotExact",
    `The number ${quoted} cannot be represented exactly; send it as a string with IEEE754Compatible=true.`,
    jsonPathAt(text, position) || undefined,
  );
}
