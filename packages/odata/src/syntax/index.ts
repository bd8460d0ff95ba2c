/**
 * The OData URL parser: query options and resource paths to the syntax tree of ast.ts. It knows
 * no model; every failure is a `QuerySyntaxError` naming the option and the offset in its value.
 */
export type * from "./ast.js";
export { parseAliasValue } from "./parse-alias-value.js";
export { parseApply } from "./parse-apply.js";
export { parseCompute, parseFilter, parseOrderBy } from "./parse-expression.js";
export { parseCount, parseSkip, parseTop } from "./parse-paging.js";
export { parseQueryOptions, systemQueryOption } from "./parse-query-options.js";
export { parseResourcePath } from "./parse-resource-path.js";
export { parseSearch } from "./parse-search.js";
export { parseExpand, parseSelect } from "./parse-select-expand.js";
export { printExpr } from "./print-expr.js";
export { queryParameters, queryString } from "./query-parameters.js";
export { QuerySyntaxError } from "./syntax-error.js";
