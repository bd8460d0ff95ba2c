/**
 * `$search` as a condition: the record's search document (the expression its search index
 * holds, core's search-document.ts) matched against a `tsquery` built from the search tree.
 * Every term is a statement parameter read by `plainto_tsquery` (a word) or `phraseto_tsquery` (a
 * phrase), so no character of it is ever tsquery syntax; the operators come from the tree.
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
      return sql`(${tsquery(expr.left)} && ${tsquery(expr.right)})`;
    case "or":
      return sql`(${tsquery(expr.left)} || ${tsquery(expr.right)})`;
  }
}

/** the records of `scope` whose searchable text matches */
export const searchCondition = (search: BoundSearch, scope: QueryScope): SQL =>
  sql`${searchDocument(search.columns, (c) => scope.column(scope.alias, c.column))} @@ ${tsquery(search.expr)}`;
