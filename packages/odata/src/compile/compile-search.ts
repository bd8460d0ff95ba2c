/**
 * `$search` as a condition: the record's search document (the expression its search index
 * holds, core's search-document.ts) matched against a `tsquery` built from the search tree.
 * Every term is a statement parameter read by `plainto_tsquery` (a word) or `phraseto_tsquery` (a
 * phrase), so no character of it is ever tsquery syntax; the operators come from the tree.
 * A run of one operator (`a OR b OR c …`, which the parser folds to the left) is joined as a
 * balanced tree, so the SQL nests log2(n) deep, not n: an expression nested a few hundred levels
 * deep exhausts the stack of PGlite's PostgreSQL, which then answers nothing at all.
 */
import { SEARCH_CONFIGURATION, searchDocument } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import type { BoundSearch } from "../bind/bind-search.js";
import type { SearchExpr } from "../syntax/ast.js";
import type { QueryScope } from "./query-scope.js";

// inline, not a parameter: the index is built on this very configuration
const configuration = sql.raw(`'${SEARCH_CONFIGURATION}'`);

function tsquery(expr: SearchExpr): SQL {
  switch (expr.kind) {
    case "word":
      return sql`plainto_tsquery(${configuration}, ${expr.value}::text)`;
    case "phrase":
      return sql`phraseto_tsquery(${configuration}, ${expr.value}::text)`;
    case "not":
      return sql`(!! ${tsquery(expr.operand)})`;
    case "and":
    case "or":
      return balanced(operands(expr, expr.kind).map(tsquery), expr.kind === "and" ? sql` && ` : sql` || `);
  }
}

/** the operands of a run of `kind`, in order: `(a OR b) OR c` → a, b, c */
function operands(expr: SearchExpr, kind: "and" | "or"): SearchExpr[] {
  if (expr.kind !== kind) return [expr];
  return [...operands(expr.left, kind), ...operands(expr.right, kind)];
}

/** `parts` joined by `operator`, halved at each level (the operators are associative) */
function balanced(parts: readonly SQL[], operator: SQL): SQL {
  if (parts.length === 1) return parts[0]!;
  const half = Math.ceil(parts.length / 2);
  return sql`(${balanced(parts.slice(0, half), operator)}${operator}${balanced(parts.slice(half), operator)})`;
}

/** the records of `scope` whose searchable text matches */
export const searchCondition = (search: BoundSearch, scope: QueryScope): SQL =>
  sql`${searchDocument(search.columns, (c) => scope.column(scope.alias, c.column))} @@ ${tsquery(search.expr)}`;
