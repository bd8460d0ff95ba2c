import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { ComputeItem, Expr, OrderByItem } from "./ast.js";
import { runRule } from "./run-rule.js";

/**
 * Parses a `$filter` value into an expression tree.
 *
 * @example parseFilter("PrimaryContact/MailingAddress/State eq 'PA' and Cost gt 10")
 * @throws QuerySyntaxError with option `$filter` and the offset of the problem
 */
export function parseFilter(text: string, limits: QueryLimits = defaultQueryLimits): Expr {
  return runRule("$filter", text, limits, (p) => p.boolCommonExpr());
}

/**
 * Parses an `$orderby` value: comma-separated expressions, each optionally `asc` (default) or `desc`.
 *
 * @example parseOrderBy("SellToCustomer/Id desc, DocNumber")
 */
export function parseOrderBy(text: string, limits: QueryLimits = defaultQueryLimits): OrderByItem[] {
  return runRule("$orderby", text, limits, (p) => p.orderby());
}

/**
 * Parses a `$compute` value: comma-separated `expression as Alias`.
 *
 * @example parseCompute("Quantity mul UnitPrice as LineTotal")
 */
export function parseCompute(text: string, limits: QueryLimits = defaultQueryLimits): ComputeItem[] {
  return runRule("$compute", text, limits, (p) => p.compute());
}
