/**
 * Whether a JSON number literal keeps its value when it becomes a JS number, i.e. whether the
 * double prints back (String(), the shortest form that round-trips it) as the same decimal value.
 * So 0.1, 1.10 and 1e2 pass, while 12345678901234567890 (which comes back as
 * 12345678901234567000), 0.1000000000000000000001 (0.1) and 1e400 (Infinity) do not. Exact binary
 * value is not the measure: no double is exactly 0.1, and what the client sees echoed, and what a
 * decimal column stores, is the printed form.
 */
export function isExactNumber(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return false;
  const printed = String(value);
  // Most long literals come from a double printed the same way; only other spellings need canonical().
  return printed === literal || canonical(printed) === canonical(literal);
}

/**
 * The magnitude of a numeral as `<digits>e<exponent>` without leading or trailing zeros, so two
 * numerals have equal magnitude exactly when their canonical forms are equal. The sign is left
 * out: Number() always keeps it, and -0 equals 0.
 */
function canonical(numeral: string): string {
  const unsigned = numeral.startsWith("-") ? numeral.slice(1) : numeral;
  const e = unsigned.search(/[eE]/);
  const mantissa = e < 0 ? unsigned : unsigned.slice(0, e);
  let exponent = e < 0 ? 0 : Number.parseInt(unsigned.slice(e + 1), 10);
  const dot = mantissa.indexOf(".");
  let digits = mantissa;
  if (dot >= 0) {
    digits = mantissa.slice(0, dot) + mantissa.slice(dot + 1);
    exponent -= mantissa.length - dot - 1;
  }
  let first = 0;
  while (first < digits.length && digits[first] === "0") first++;
  let end = digits.length;
  while (end > first && digits[end - 1] === "0") end--;
  if (end === first) return "0";
  return `${digits.slice(first, end)}e${exponent + digits.length - end}`;
}
