/**
 * `$top` and `$skip` values (api-conventions "Reads": negative, non-integer or over the limit is
 * a 400). Digits only, as written (ABNF `top = ( "$top" / "top" ) EQ oneToNine *DIGIT`): no
 * sign, fraction, exponent or blank.
 */

import { BLANK_AFTER_EQUALS } from "./syntax-error.js";

export type IntegerReading =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly offset: number; readonly problem: string };

export function readNonNegativeInteger(text: string, max: number): IntegerReading {
  let i = 0;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  if (i === 0 || i < text.length) {
    // `i` is the first character that is not a digit
    return { ok: false, offset: i, problem: problemAt(text, i) };
  }
  const value = Number(text);
  // beyond MAX_SAFE_INTEGER `Number` rounds, so such a value is never compared as if exact
  if (!Number.isSafeInteger(value) || value > max) {
    return { ok: false, offset: 0, problem: `must not be larger than ${Math.min(max, Number.MAX_SAFE_INTEGER)}` };
  }
  return { ok: true, value };
}

function problemAt(text: string, offset: number): string {
  const c = text[offset];
  if (c === undefined) return "expected a non-negative integer but found end of input";
  if (c === "-") return "must not be negative";
  if (c === " " || c === "\t") return offset === 0 ? BLANK_AFTER_EQUALS : "no blank is allowed in a number";
  if (c === "." || c === "e" || c === "E") return "must be an integer";
  return `expected a non-negative integer but found '${c}'`;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
