import { deferEscapes } from "./deferred-escapes.js";
import { systemQueryOption } from "./parse-query-options.js";

/** the options whose values keep `%3B` and `%25` encoded (deferred-escapes.ts) */
const deferring: ReadonlySet<string | undefined> = new Set(["$search", "$expand"]);

/** a query component decoded as a form value (`+` a space, malformed escapes left as they are) */
const formDecoded = (text: string): string => new URLSearchParams(`v=${text}`).get("v")!;

/**
 * The parameters of a URL's query as the parser reads them: split at `&` and `=`, then decoded
 * as `URLSearchParams` decodes them, but for the values of `$search` and `$expand` (in any
 * spelling), which keep `%3B` and `%25` encoded for the parser to tell `a%3Bb` (one word) from
 * `a;b` (deferred-escapes.ts).
 *
 * @example queryParameters("?$expand=Details($search=a%3Bb)").get("$expand") // "Details($search=a%3Bb)"
 */
export function queryParameters(query: string): URLSearchParams {
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
