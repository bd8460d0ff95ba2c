import { deferEscapes } from "./deferred-escapes.js";
import { systemQueryOption } from "./parse-query-options.js";

/** the options whose values keep `%3B` and `%25` encoded (deferred-escapes.ts) */
const deferring: ReadonlySet<string | undefined> = new Set(["$search"]);

const KEPT = /%(25|3B)/i;

/** a query component decoded as a form value (`+` a space, malformed escapes left as they are) */
const formDecoded = (text: string): string => new URLSearchParams(`v=${text}`).get("v")!;

/**
 * The parameters of a URL's query as the parser reads them: split at `&` and `=`, then decoded
 * as `URLSearchParams` decodes them, but for the value of `$search` (in any spelling), which
 * keeps `%3B` and `%25` encoded for the parser to tell `a%3Bb` (one word) from `a;b` (an error,
 * deferred-escapes.ts).
 *
 * @example queryParameters("?$search=a%3Bb").get("$search") // "a%3Bb"
 */
export function queryParameters(query: string): URLSearchParams {
  // without a `%3B` or `%25` anywhere, the plain reading is the same
  if (!KEPT.test(query)) return new URLSearchParams(query);
  const params = new URLSearchParams();
  for (const part of (query.startsWith("?") ? query.slice(1) : query).split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const name = formDecoded(equals < 0 ? part : part.slice(0, equals));
    const value = equals < 0 ? "" : part.slice(equals + 1);
    params.append(name, formDecoded(deferring.has(systemQueryOption(name)) ? deferEscapes(value) : value));
  }
  return params;
}
