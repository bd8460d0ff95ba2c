const BACKSLASH = 0x5c;

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
