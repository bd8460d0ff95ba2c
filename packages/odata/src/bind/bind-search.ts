/**
 * Binds `$search` to an entity: the terms are searched for in its searchable text properties
 * (`text({ searchable: true })`), as words of one document per record (core's
 * search-document.ts). An entity without searchable properties, or a term with no letter or digit
 * in it (nothing a word could match), is a 400 naming it.
 */
import { type AnyEntity, badRequest, type ColumnMapping, searchColumns } from "@bizdata/core";
import type { SearchExpr } from "../syntax/ast.js";

export interface BoundSearch {
  /** the searchable columns, in declaration order: the search document */
  readonly columns: readonly ColumnMapping[];
  readonly expr: SearchExpr;
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

function checkTerms(expr: SearchExpr, option: string): void {
  switch (expr.kind) {
    case "word":
    case "phrase":
      if (!WORD_CHARACTER.test(expr.value)) {
        const shown = expr.kind === "word" ? expr.value : JSON.stringify(expr.value);
        throw badRequest(
          "InvalidSearch",
          `The search term ${shown} (at position ${expr.pos} of ${option}) has no letter or digit to search for.`,
          option,
        );
      }
      return;
    case "not":
      checkTerms(expr.operand, option);
      return;
    case "and":
    case "or":
      checkTerms(expr.left, option);
      checkTerms(expr.right, option);
      return;
  }
}

export function bindSearch(entity: AnyEntity, expr: SearchExpr, option: string): BoundSearch {
  const columns = searchColumns(entity);
  if (columns.length === 0) {
    throw badRequest(
      "NotSearchable",
      `${entity.name} has no searchable properties, so ${option} does not apply to it.`,
      option,
    );
  }
  checkTerms(expr, option);
  return { columns, expr };
}
