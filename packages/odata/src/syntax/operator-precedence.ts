/**
 * Operator precedence of OData 4.01 URL conventions 5.1.1.1, lowest first. The grammar reads an
 * expression as a flat `operand (operator operand)*` sequence, as the ABNF `commonExpr` does,
 * and this table folds it into a tree; the printer uses the same table to decide on parentheses.
 */
import type { BinaryOperator, Expr } from "./ast.js";

export const Precedence = {
  or: 1,
  and: 2,
  equality: 3,
  /** `gt ge lt le has in` */
  relational: 4,
  additive: 5,
  multiplicative: 6,
  /** `-x`, `not x` */
  unary: 7,
  /** literals, paths, calls, lambdas, parenthesised expressions */
  primary: 8,
} as const;

const binaryPrecedence: Readonly<Record<BinaryOperator, number>> = {
  or: Precedence.or,
  and: Precedence.and,
  eq: Precedence.equality,
  ne: Precedence.equality,
  gt: Precedence.relational,
  ge: Precedence.relational,
  lt: Precedence.relational,
  le: Precedence.relational,
  has: Precedence.relational,
  add: Precedence.additive,
  sub: Precedence.additive,
  mul: Precedence.multiplicative,
  div: Precedence.multiplicative,
  divby: Precedence.multiplicative,
  mod: Precedence.multiplicative,
};

export function precedenceOf(op: BinaryOperator | "in"): number {
  return op === "in" ? Precedence.relational : binaryPrecedence[op];
}

/** How tightly an expression binds when printed: decides whether it needs parentheses. */
export function exprPrecedence(expr: Expr): number {
  switch (expr.kind) {
    case "binary":
      return binaryPrecedence[expr.op];
    case "in":
      return Precedence.relational;
    case "not":
    case "negate":
      return Precedence.unary;
    default:
      return Precedence.primary;
  }
}

/** True for the words the grammar reads as binary operators (the `BinaryOperator` token category). */
export function isBinaryOperator(word: string): word is BinaryOperator {
  return Object.hasOwn(binaryPrecedence, word);
}
