import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { SearchExpr } from "./ast.js";
import { searchLexer } from "./lexer.js";
import { runRule } from "./run-rule.js";

/**
 * Parses a `$search` value: words and "phrases" joined by `AND` (or a blank), `OR` and `NOT`,
 * grouped by parentheses (OData 4.01 ABNF `searchExpr`), or a whole value in single quotes
 * (`searchExpr-incomplete`). `%3B` and `%25` in the text are a `;` and a `%` of a term (the
 * query keeps them encoded for this: queryParameters), a raw `;` is an error.
 *
 * @example parseSearch('blue "red widget" OR NOT (gadget steel)')
 * @throws QuerySyntaxError with option `$search` and the offset of the problem
 */
export function parseSearch(text: string, limits: QueryLimits = defaultQueryLimits): SearchExpr {
  return runRule("$search", text, limits, (p) => p.search(), searchLexer, true);
}
