import { deferEscapes } from "./deferred-escapes.js";
import { systemQueryOption } from "./parse-query-options.js";

/** the options whose values keep `%3B` and `%25` encoded (deferred-escapes.ts) */
const deferring: ReadonlySet<string | undefined> = new Set(["$search", "$expand"]);

const KEPT = /%(25|3B)/i;

/** a query component decoded as a form value (`+` a space, malformed escapes left as they are) */
const formDecoded = (text: string): string => new URLSearchParams(`v=${text}`).get("v")!;

/**
 * The parameters of a URL's query as the parser reads them: split at `&` and `=`, then decoded
 * as `URLSearchParams` decodes them, but for the values of `$search` and `$expand` (in any
 * spelling), which keep `%3B` and `%25` encoded for the parser to tell `a%3Bb` (one word) from
 * `a;b` (an error, or in `$expand` the end of the search, deferred-escapes.ts).
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

/** in a deferring option's value as URLSearchParams writes it: a kept escape (`%253B`, `%2525`) or a raw `;` (`%3B`) */
const WRITTEN = /%25(25|3B)|%3B/gi;

/**
 * The query of `params` as a URL writes it, the inverse of queryParameters: a link the service
 * writes (a next link, a delta link) reads back as the same parameters, the `%3B` and `%25` a
 * `$search` or `$expand` value kept still escapes, its raw `;` still a `;`.
 *
 * @example queryString(queryParameters("$search=a%3Bb&$top=1")) // "%24search=a%3Bb&%24top=1"
 */
export function queryString(params: URLSearchParams): string {
  const pairs: string[] = [];
  for (const [name, value] of params) {
    const pair = new URLSearchParams([[name, value]]).toString();
    pairs.push(
      deferring.has(systemQueryOption(name))
        ? pair.replace(WRITTEN, (_written, kept: string | undefined) => (kept === undefined ? ";" : `%${kept}`))
        : pair,
    );
  }
  return pairs.join("&");
}
