/**
 * In a search word `%3B` is a semicolon of the word (ABNF `searchWord`: `pct-encoded-no-DQUOTE`),
 * while a raw `;` may not stand in one. Decoding the whole value first would make the two the
 * same, so a `$search` value reaches the parser with `%3B` still encoded, and `%25` too (else
 * `%253B`, an encoded `%3B`, would turn into one); the words and phrases it reads decode the two.
 * query-parameters.ts does the first half, and writes a kept value back into a link.
 *
 * `$expand` keeps them too, for its nested `$search`: there a raw `;` ends the search, and so
 * does a `%3B` right before another option (`%3B$top=5`), as clients that encode the whole value
 * (URLSearchParams, encodeURIComponent) write the separators; any other `%3B` in the search is a
 * `;` of its word (`Manager($search=a%3Bb)`). Between options `%3B` is a `;` (EncodedSemicolon),
 * and quoted strings decode both.
 */

/** `raw`, still percent-encoded, made so that one decoding leaves `%3B` and `%25` as they are */
export const deferEscapes = (raw: string): string => raw.replace(/%(25|3B)/gi, "%25$1");

/** the `%3B` and `%25` that deferEscapes kept, decoded */
export const decodeDeferred = (text: string): string =>
  text.includes("%") ? text.replace(/%(25|3B)/gi, (kept) => (kept === "%25" ? "%" : ";")) : text;
