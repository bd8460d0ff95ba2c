import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { ApplyTransformation } from "./ast.js";
import { runRule } from "./run-rule.js";

/**
 * Parses an `$apply` value: `filter(…)`, `aggregate(…)` and `groupby((…)[,aggregate(…)])`
 * chained with `/`. Aggregate items are `expr with sum|min|max|average|countdistinct as Alias`
 * or `$count as Alias`.
 *
 * @example parseApply("filter(Status eq 'Open')/groupby((SellToCustomer/Id),aggregate(TotalPrice with sum as Total))")
 */
export function parseApply(text: string, limits: QueryLimits = defaultQueryLimits): ApplyTransformation[] {
  return runRule("$apply", text, limits, (p) => p.applyExpr());
}
