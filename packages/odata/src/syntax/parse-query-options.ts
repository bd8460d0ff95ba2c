import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { QueryOptions } from "./ast.js";
import { parseApply } from "./parse-apply.js";
import { parseCompute, parseFilter, parseOrderBy } from "./parse-expression.js";
import { parseCount, parseSkip, parseTop } from "./parse-paging.js";
import { parseExpand, parseSelect } from "./parse-select-expand.js";
import type { MutableQueryOptions } from "./query-option-parser.js";
import { QuerySyntaxError } from "./syntax-error.js";

type OptionParser = (text: string, limits: QueryLimits, into: MutableQueryOptions) => void;

/** The system query options of spec 4.4, by name. */
const optionParsers: Readonly<Record<string, OptionParser>> = {
  $filter: (text, limits, into) => {
    into.filter = parseFilter(text, limits);
  },
  $orderby: (text, limits, into) => {
    into.orderby = parseOrderBy(text, limits);
  },
  $select: (text, limits, into) => {
    into.select = parseSelect(text, limits);
  },
  $expand: (text, limits, into) => {
    into.expand = parseExpand(text, limits);
  },
  $top: (text, limits, into) => {
    into.top = parseTop(text, limits);
  },
  $skip: (text, limits, into) => {
    into.skip = parseSkip(text, limits);
  },
  $count: (text, limits, into) => {
    into.count = parseCount(text, limits);
  },
  $apply: (text, limits, into) => {
    into.apply = parseApply(text, limits);
  },
  $compute: (text, limits, into) => {
    into.compute = parseCompute(text, limits);
  },
};

/**
 * Parses the system query options of a request (`$filter $orderby $select $expand $top $skip
 * $count $apply $compute`). Names starting with `$` are matched case-insensitively (OData 4.01);
 * an unknown or repeated one is an error. Parameters without `$` are left alone: they are
 * method parameters (spec 4.8). The whole query is capped by `maxQueryLength`.
 *
 * @example parseQueryOptions(new URL(request.url).searchParams)
 * @throws QuerySyntaxError naming the offending option (`query` when the whole query is too long)
 */
export function parseQueryOptions(
  params: URLSearchParams | Readonly<Record<string, string>>,
  limits: QueryLimits = defaultQueryLimits,
): QueryOptions {
  const entries = params instanceof URLSearchParams ? [...params] : Object.entries(params);

  // `name=value` joined by `&`, as in the URL
  let length = Math.max(0, entries.length - 1);
  for (const [name, value] of entries) length += name.length + 1 + value.length;
  if (length > limits.maxQueryLength) {
    throw new QuerySyntaxError("query", limits.maxQueryLength, `longer than ${limits.maxQueryLength} characters`);
  }

  const options: MutableQueryOptions = {};
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    if (!name.startsWith("$")) continue;
    const canonical = name.toLowerCase();
    const parse = Object.hasOwn(optionParsers, canonical) ? optionParsers[canonical] : undefined;
    if (parse === undefined) throw new QuerySyntaxError(name, 0, `unknown query option '${name}'`);
    if (seen.has(canonical)) throw new QuerySyntaxError(name, 0, `option '${name}' is repeated`);
    seen.add(canonical);
    parse(value, limits, options);
  }
  return options;
}
