/**
 * In a search word `%3B` is a semicolon of the word (ABNF `searchWord`: `pct-encoded-no-DQUOTE`),
 * while a raw `;` may not stand in one and, in a search inside `$expand`, ends it before the
 * item's next option. Decoding the whole value first would make the two the same, so `$search`
 * and `$expand` values reach the parser with `%3B` still encoded, and `%25` too (else `%253B`, an
 * encoded `%3B`, would turn into one). Between the options of an `$expand` item `%3B` is a
 * separator like `;` (ABNF `SEMI`, tokens.ts); the values the parser reads (search words and
 * phrases, string literals) decode the two. query-parameters.ts does the first half.
 */

/** `raw`, still percent-encoded, made so that one decoding leaves `%3B` and `%25` as they are */
export const deferEscapes = (raw: string): string => raw.replace(/%(25|3B)/gi, "%25$1");

/** the `%3B` and `%25` that deferEscapes kept, decoded */
export const decodeDeferred = (text: string): string =>
  text.includes("%") ? text.replace(/%(25|3B)/gi, (kept) => (kept === "%25" ? "%" : ";")) : text;
