/**
 * `$top` and `$skip` values (api-conventions "Reads": negative, non-integer or over the limit is
 * a 400). Digits only: no sign, fraction or exponent; spaces and tabs around them are allowed
 * as anywhere else in a query option.
 */

export type IntegerReading =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly offset: number; readonly problem: string };

export function readNonNegativeInteger(text: string, max: number): IntegerReading {
  let i = 0;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  const start = i;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  const end = i;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  if (end === start || i < text.length) {
    // `i` is the first character that is neither a leading blank, a digit nor a trailing blank
    return { ok: false, offset: i, problem: problemAt(text, i) };
  }
  const value = Number(text.slice(start, end));
  // beyond MAX_SAFE_INTEGER `Number` rounds, so such a value is never compared as if exact
  if (!Number.isSafeInteger(value) || value > max) {
    return { ok: false, offset: start, problem: `must not be larger than ${Math.min(max, Number.MAX_SAFE_INTEGER)}` };
  }
  return { ok: true, value };
}

function problemAt(text: string, offset: number): string {
  const c = text[offset];
  if (c === undefined) return "expected a non-negative integer but found end of input";
  if (c === "-") return "must not be negative";
  if (c === "." || c === "e" || c === "E") return "must be an integer";
  return `expected a non-negative integer but found '${c}'`;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}
