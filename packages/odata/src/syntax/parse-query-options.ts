import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { AliasValue, QueryOptions } from "./ast.js";
import { parseAliasValue } from "./parse-alias-value.js";
import { parseApply } from "./parse-apply.js";
import { parseCompute, parseFilter, parseOrderBy } from "./parse-expression.js";
import { parseCount, parseSkip, parseTop } from "./parse-paging.js";
import { parseSearch } from "./parse-search.js";
import { parseExpand, parseSelect } from "./parse-select-expand.js";
import type { MutableQueryOptions } from "./query-option-parser.js";
import { BLANK_AFTER_EQUALS, QuerySyntaxError } from "./syntax-error.js";

const ALIAS_NAME = /^@[A-Za-z_][A-Za-z0-9_]*$/;

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
  $search: (text, limits, into) => {
    into.search = parseSearch(text, limits);
  },
};

/**
 * The system query option a query parameter name stands for, or undefined: OData 4.01 makes the
 * `$` optional and names case-insensitive, so `$filter`, `filter` and `$FILTER` are all `$filter`.
 *
 * @example systemQueryOption("Top") // "$top"
 */
export function systemQueryOption(name: string): string | undefined {
  const canonical = `$${(name.startsWith("$") ? name.slice(1) : name).toLowerCase()}`;
  return Object.hasOwn(optionParsers, canonical) ? canonical : undefined;
}

/**
 * Parses the query of a request: the system query options (`$filter $orderby $select $expand
 * $top $skip $count $apply $compute $search`, with or without `$`, in any case: OData 4.01) and the
 * values of parameter aliases (`@name=value`). Any other name is an error unless it is one of
 * `methodParameters` (the declared parameters of a method being called, left for the caller),
 * so a 4.01 `filter=` is never mistaken for a custom parameter. The whole query is capped by
 * `maxQueryLength`.
 *
 * @example parseQueryOptions(new URL(request.url).searchParams)
 * @throws QuerySyntaxError naming the offending option (`query` when the whole query is too long)
 */
export function parseQueryOptions(
  params: URLSearchParams | Readonly<Record<string, string>>,
  limits: QueryLimits = defaultQueryLimits,
  methodParameters: ReadonlySet<string> = new Set(),
): QueryOptions {
  const entries = params instanceof URLSearchParams ? [...params] : Object.entries(params);

  // `name=value` joined by `&`, as in the URL
  let length = Math.max(0, entries.length - 1);
  for (const [name, value] of entries) length += name.length + 1 + value.length;
  if (length > limits.maxQueryLength) {
    throw new QuerySyntaxError("query", limits.maxQueryLength, `longer than ${limits.maxQueryLength} characters`);
  }

  const options: MutableQueryOptions = {};
  const seen = new Map<string, string>();
  const aliases = new Map<string, AliasValue>();
  for (const [name, value] of entries) {
    if (methodParameters.has(name)) continue;
    // `$top= 5`: the ABNF has no blank after `=`, and dropping it would read what was not written
    if (value.startsWith(" ") || value.startsWith("\t")) throw new QuerySyntaxError(name, 0, BLANK_AFTER_EQUALS);
    if (name.startsWith("@")) {
      // alias names are case sensitive like every other name (URL conventions 5.1.1.14.2)
      if (!ALIAS_NAME.test(name)) throw new QuerySyntaxError(name, 0, `'${name}' is not a parameter alias name`);
      if (aliases.has(name.slice(1))) throw new QuerySyntaxError(name, 0, `parameter alias '${name}' is repeated`);
      aliases.set(name.slice(1), parseAliasValue(name, value, limits));
      continue;
    }
    const canonical = systemQueryOption(name);
    if (canonical === undefined) {
      throw new QuerySyntaxError(
        name,
        0,
        `'${name}' is neither a system query option (${Object.keys(optionParsers).join(", ")}) nor a parameter alias (@name)`,
      );
    }
    const earlier = seen.get(canonical);
    if (earlier !== undefined) {
      throw new QuerySyntaxError(
        name,
        0,
        earlier === name ? `option '${name}' is repeated` : `option '${name}' repeats '${earlier}'`,
      );
    }
    seen.set(canonical, name);
    optionParsers[canonical]!(value, limits, options);
  }
  if (aliases.size > 0) options.aliases = aliases;
  return options;
}
