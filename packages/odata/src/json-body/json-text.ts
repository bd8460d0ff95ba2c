/** character codes the JSON scanners compare against */
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const PLUS = 0x2b;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const NINE = 0x39;
export const UPPER_E = 0x45;
export const LBRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const LOWER_E = 0x65;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;

/**
 * The index of the quote closing the JSON string that opens at `open`, or the text's length when
 * it is unterminated. indexOf is native and far faster than walking the string in JS; a quote
 * preceded by an odd run of backslashes is escaped. Each backslash run is counted once, so the
 * whole search is linear.
 */
export function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote >= 0 && text.charCodeAt(quote - 1) === BACKSLASH && isEscaped(text, quote)) {
    quote = text.indexOf('"', quote + 1);
  }
  return quote < 0 ? text.length : quote;
}

function isEscaped(text: string, quote: number): boolean {
  let before = quote - 1;
  while (text.charCodeAt(before) === BACKSLASH) before--;
  return (quote - 1 - before) % 2 === 1;
}
