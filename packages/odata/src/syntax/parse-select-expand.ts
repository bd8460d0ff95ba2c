import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { ExpandItem, SelectItem } from "./ast.js";
import { expandLexer } from "./lexer.js";
import { runRule } from "./run-rule.js";

/**
 * Parses a `$select` value: comma-separated property paths, or `*` (path `["*"]`).
 *
 * @example parseSelect("SKU,PrimaryContact/MailingAddress/City")
 */
export function parseSelect(text: string, limits: QueryLimits = defaultQueryLimits): SelectItem[] {
  return runRule("$select", text, limits, (p) => p.select());
}

/**
 * Parses an `$expand` value with its nested options in parentheses, separated by `;`
 * (`$select $filter $orderby $top $skip $count $expand $compute $search $apply`). Depth and items
 * per level are capped by `maxExpandDepth`/`maxExpandWidth`. Errors in nested options are reported
 * for `$expand` at their offset in the whole `$expand` value. As a `$search` value, the text keeps
 * `%3B` and `%25` encoded (queryParameters): a `%3B` is the `;` between options, but in a nested
 * search where no option follows it, a `;` of the word; strings decode both (deferred-escapes.ts).
 *
 * @example parseExpand("Details($select=Quantity;$filter=Quantity gt 5;$expand=Product($select=SKU))")
 */
export function parseExpand(text: string, limits: QueryLimits = defaultQueryLimits): ExpandItem[] {
  return runRule("$expand", text, limits, (p) => p.expand(), expandLexer, true);
}
