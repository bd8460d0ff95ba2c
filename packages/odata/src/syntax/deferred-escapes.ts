/**
 * In a search word `%3B` is a semicolon of the word (ABNF `searchWord`: `pct-encoded-no-DQUOTE`),
 * while a raw `;` may not stand in one. Decoding the whole value first would make the two the
 * same, so a `$search` value reaches the parser with `%3B` still encoded, and `%25` too (else
 * `%253B`, an encoded `%3B`, would turn into one); the words and phrases it reads decode the two.
 * query-parameters.ts does the first half.
 *
 * `$expand` is decoded whole: there `%3B` is the `;` between an item's options (ABNF `SEMI`), as
 * clients that encode the whole value (URLSearchParams, encodeURIComponent) write it, also after
 * a nested `$search`, whose own `;` goes in quotes (`$search="a;b"` or `$search='a;b'`).
 */

/** `raw`, still percent-encoded, made so that one decoding leaves `%3B` and `%25` as they are */
export const deferEscapes = (raw: string): string => raw.replace(/%(25|3B)/gi, "%25$1");

/** the `%3B` and `%25` that deferEscapes kept, decoded */
export const decodeDeferred = (text: string): string =>
  text.includes("%") ? text.replace(/%(25|3B)/gi, (kept) => (kept === "%25" ? "%" : ";")) : text;
