/**
 * Prints an expression tree back as OData text, with only the parentheses precedence needs
 * (operator-precedence.ts). `parseFilter(printExpr(e))` gives `e` back (positions aside), which
 * the property tests rely on; messages can use it to quote an expression.
 */
import { odataString } from "@bizdata/core";
import type { Expr } from "./ast.js";
import { exprPrecedence, Precedence, precedenceOf } from "./operator-precedence.js";

/**
 * OData text for an expression tree, e.g. for quoting it in a message.
 *
 * @example printExpr(parseFilter("(A eq 1)  and  not B")) // "A eq 1 and not B"
 */
export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case "null":
      return "null";
    case "boolean":
      return expr.value ? "true" : "false";
    case "integer":
    case "decimal":
      return expr.text;
    case "string":
      return odataString(expr.value);
    case "guid":
    case "date":
    case "dateTimeOffset":
    case "timeOfDay":
      return expr.value;
    case "duration":
      return `duration'${expr.value}'`;
    case "parameterAlias":
      return `@${expr.name}`;
    case "path":
      return expr.segments.join("/");
    case "binary": {
      const precedence = precedenceOf(expr.op);
      // left-associative: an equal-precedence operand needs parentheses only on the right
      return `${operand(expr.left, precedence)} ${expr.op} ${operand(expr.right, precedence + 1)}`;
    }
    case "in":
      return `${operand(expr.operand, Precedence.relational)} in ${"kind" in expr.list ? printExpr(expr.list) : `(${expr.list.map(printExpr).join(",")})`}`;
    case "not":
      return `not ${operand(expr.operand, Precedence.unary)}`;
    case "negate":
      // `-5` would read back as the literal -5, not as the negation of 5
      return expr.operand.kind === "path" || expr.operand.kind === "call" || expr.operand.kind === "lambda"
        ? `-${printExpr(expr.operand)}`
        : `-(${printExpr(expr.operand)})`;
    case "call":
      return `${expr.name}(${expr.args.map(printExpr).join(",")})`;
    case "case":
      return `case(${expr.branches.map((b) => branch(printExpr(b.when), printExpr(b.value))).join(",")})`;
    case "lambda": {
      const body =
        expr.variable === null || expr.predicate === null ? "" : `${expr.variable}:${printExpr(expr.predicate)}`;
      return `${expr.collection.segments.join("/")}/${expr.op}(${body})`;
    }
  }
}

function operand(expr: Expr, minPrecedence: number): string {
  const text = printExpr(expr);
  return exprPrecedence(expr) < minPrecedence ? `(${text})` : text;
}

/** `when:value`, with blanks where two digits meet two at the colon: `A eq 10:00` would read as a time of day */
const branch = (when: string, value: string) =>
  /\d\d$/.test(when) && /^\d\d/.test(value) ? `${when} : ${value}` : `${when}:${value}`;
