import { defaultQueryLimits } from "../limits.js";
import type { ResourcePath } from "./ast.js";
import { runRule } from "./run-rule.js";

/**
 * Parses the resource path after `/api/` (spec 4.2 and 4.8). Keys are a bare GUID, `guid'…'` or
 * a quoted string; method segments record whether they had `()` and their inline parameters.
 *
 * @example parseResourcePath("SalesOrder/GetOpenOrders(customerId='C1')")
 * @throws QuerySyntaxError with option `path`
 */
export function parseResourcePath(path: string): ResourcePath {
  return runRule("path", path, defaultQueryLimits, (p) => p.resourcePath());
}
