import { ServiceError } from "@bizdata/core";
import type { BodyLimits } from "../limits.js";
import { isExactNumber } from "./exact-number.js";
import { jsonPathAt } from "./json-path.js";
import { findJsonSyntaxError } from "./json-syntax-error.js";
import {
  COMMA,
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
 * rounded). Text that is not JSON is 400 InvalidJson naming the character position, an empty
 * body 400 EmptyBody, and an object naming a property twice 400 DuplicateJsonKey (JSON.parse
 * would keep the last silently, so what a client meant and what is stored could differ).
 *
 * Property names stay own data properties: JSON.parse defines "__proto__" as an ordinary own key
 * and never touches a prototype, so validation later rejects it like any unknown property.
 */
export function parseJson(text: string, limits: Pick<BodyLimits, "maxDepth">): unknown {
  if (text.trim() === "") throw emptyBody();
  const found = scan(text, limits.maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw invalidJson(text, cause);
  }
  // Reported only for valid JSON, so a syntax error is never mistaken for a bad number or key.
  if (found.duplicateAt >= 0) throw duplicateKey(text, found.duplicateAt, found.duplicate);
  if (found.inexactAt >= 0) throw numberNotExact(text, found.inexactAt);
  return value;
}

/** 400 EmptyBody: a write (or batch) sent with a JSON Content-Type and nothing in it */
export const emptyBody = () =>
  new ServiceError("EmptyBody", "The request body is empty: send a JSON value (for a record, an object).");

/**
 * The property names of one object seen so far: none, one (most objects of a body are small, so
 * the first name is kept without a set) or a set; arrays have no entry's names.
 */
interface OpenObject {
  first: string | undefined;
  names: Set<string> | undefined;
  expectsKey: boolean;
}

/** where the scan found the first inexact number and the first repeated property name, or -1 */
interface Found {
  inexactAt: number;
  duplicateAt: number;
  duplicate: string;
}

/**
 * One linear pass over the text, outside strings: counts bracket depth (throwing when it passes
 * the limit), checks each number literal and each object's property names. Outside strings only
 * number literals contain digits or '-', so no full tokenizer is needed.
 */
function scan(text: string, maxDepth: number): Found {
  const open: (OpenObject | undefined)[] = [];
  const found: Found = { inexactAt: -1, duplicateAt: -1, duplicate: "" };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const object = open[open.length - 1];
      if (object?.expectsKey) {
        object.expectsKey = false;
        const repeated = found.duplicateAt < 0 ? repeatedName(object, text, i, end) : undefined;
        if (repeated !== undefined) {
          found.duplicateAt = i;
          found.duplicate = repeated;
        }
      }
      i = end;
    } else if (c === LBRACE || c === LBRACKET) {
      if (open.length >= maxDepth) throw tooDeep(maxDepth, i);
      open.push(c === LBRACE ? { first: undefined, names: undefined, expectsKey: true } : undefined);
    } else if (c === RBRACE || c === RBRACKET) {
      open.pop();
    } else if (c === COMMA) {
      const object = open[open.length - 1];
      if (object !== undefined) object.expectsKey = true;
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
      if (found.inexactAt < 0 && !(plain && digits <= 15) && !isExactNumber(text.slice(i, end))) found.inexactAt = i;
      i = end - 1;
    }
  }
  return found;
}

/** records the name quoted from `open` to `close`; the name when the object named it before */
function repeatedName(object: OpenObject, text: string, open: number, close: number): string | undefined {
  const raw = text.slice(open + 1, close);
  // escapes decoded, so "a" and "\u0061" are one name, as JSON.parse sees them; only when there are any
  const name = raw.includes("\\") ? decodedName(text.slice(open, close + 1)) : raw;
  if (object.first === undefined) {
    object.first = name;
    return undefined;
  }
  object.names ??= new Set([object.first]);
  if (object.names.has(name)) return name;
  object.names.add(name);
  return undefined;
}

/** a quoted name's value, or the raw text when it is malformed (JSON.parse then reports the error) */
function decodedName(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted;
  }
}

function duplicateKey(text: string, position: number, name: string): ServiceError {
  return new ServiceError(
    "DuplicateJsonKey",
    `The request body names the property ${JSON.stringify(name)} more than once in one object (position ${position}).`,
    // the path as it stands once the name is read
    jsonPathAt(text, closingQuote(text, position) + 1) || undefined,
  );
}

function tooDeep(maxDepth: number, position: number): ServiceError {
  return new ServiceError(
    "JsonTooDeep",
    `The request body nests arrays and objects deeper than the limit of ${maxDepth} levels (position ${position}).`,
  );
}

function invalidJson(text: string, cause: unknown): unknown {
  const found = findJsonSyntaxError(text);
  // JSON.parse failed on grammatical JSON: not the client's fault (e.g. out of memory), so pass it on.
  if (found === undefined) return cause;
  const error = new ServiceError(
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
    "NumberNotExact",
    `The number ${quoted} cannot be represented exactly; send it as a string with IEEE754Compatible=true.`,
    jsonPathAt(text, position) || undefined,
  );
}
