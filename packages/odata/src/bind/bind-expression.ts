/**
 * Binds a filter/orderby/compute expression: resolves names (bind-path.ts), gives every node a
 * type and refuses what cannot be evaluated (comparing text with a number, `and` on a number, an
 * unknown function) with a 400 that says where.
 */
import { isDuration, isGuid } from "@bizdata/core";
import type { BinaryExpr, CaseExpr, Expr } from "../syntax/ast.js";
import { printExpr } from "../syntax/print-expr.js";
import { invalidExpression } from "./bind-errors.js";
import { bindLiteral } from "./bind-literal.js";
import { bindAlias, bindAliasList } from "./bind-parameter-alias.js";
import { type BindScope, resolvePath } from "./bind-path.js";
import { type BoundExpr, isNumeric, type ValueType } from "./bound-expr.js";
import { accepts, describeParam, functions } from "./functions.js";
import { isTemporal, temporalResult } from "./temporal-arithmetic.js";

/**
 * A string literal may stand for a Guid, as clients often send, and for a duration, as OData 4.01
 * lets `'P1D'` be written without its `duration` prefix.
 */
const standsFor = (type: ValueType, value: BoundExpr): boolean =>
  value.kind === "literal" &&
  value.type === "string" &&
  ((type === "guid" && isGuid(value.value)) || (type === "duration" && isDuration(String(value.value))));

/** a string literal of a duration's form as that duration; anything else as it is */
const asDuration = (value: BoundExpr): BoundExpr =>
  value.kind === "literal" && standsFor("duration", value) ? { ...value, type: "duration" } : value;

/** Whether two operands can be compared. */
function comparable(a: BoundExpr, b: BoundExpr): boolean {
  if (a.type === "null" || b.type === "null" || a.type === b.type) return true;
  if (isNumeric(a.type) && isNumeric(b.type)) return true;
  return standsFor(a.type, b) || standsFor(b.type, a);
}

/** a string literal compared with a Guid or a duration becomes one; an enum value must exist */
function coerce(option: string, target: BoundExpr, value: BoundExpr): BoundExpr {
  if (value.kind !== "literal" || value.type !== "string") return value;
  if (target.type === "guid") return { kind: "literal", type: "guid", value: String(value.value).toLowerCase() };
  if (target.type === "duration") return asDuration(value);
  if (target.kind === "column" && target.column.field.kind === "enum") {
    const allowed = target.column.field.values;
    if (!allowed.includes(String(value.value))) {
      throw invalidExpression(
        option,
        `'${value.value}' is not a value of ${target.column.path.join("/")}; it is one of ${allowed.map((v) => `'${v}'`).join(", ")}`,
      );
    }
  }
  return value;
}

const describe = (e: Expr) => `"${printExpr(e)}"`;

/**
 * `add sub mul div divby mod` over numbers: integer when both are (`div` then divides as
 * integers), else decimal; `divby` is decimal always (OData 4.01 5.1.1.2.5)
 */
function arithmetic(option: string, expr: BinaryExpr, left: BoundExpr, right: BoundExpr): BoundExpr {
  for (const [side, e] of [
    [left, expr.left],
    [right, expr.right],
  ] as const) {
    if (!isNumeric(side.type))
      throw invalidExpression(option, `${expr.op} needs numbers, and ${describe(e)} is ${side.type}`);
  }
  const integers = left.type === "integer" && right.type === "integer" && expr.op !== "divby";
  return { kind: "binary", type: integers ? "integer" : "decimal", op: expr.op, left, right };
}

export function bindExpr(scope: BindScope, expr: Expr): BoundExpr {
  const { option } = scope;
  const sub = (e: Expr, s: BindScope = scope) => bindExpr(s, e);
  switch (expr.kind) {
    case "null":
    case "boolean":
    case "integer":
    case "decimal":
    case "string":
    case "guid":
    case "date":
    case "dateTimeOffset":
    case "timeOfDay":
    case "duration":
      return bindLiteral(expr);
    case "path": {
      const resolved = resolvePath(scope, expr.segments);
      if (resolved.kind === "collection") {
        throw invalidExpression(option, `${describe(expr)} is a collection: use any(), all() or $count on it`);
      }
      return resolved.expr;
    }
    case "not": {
      const operand = sub(expr.operand);
      if (operand.type !== "boolean" && operand.type !== "null") {
        throw invalidExpression(
          option,
          `not needs a true/false operand, and ${describe(expr.operand)} is ${operand.type}`,
        );
      }
      return { kind: "not", type: "boolean", operand };
    }
    case "negate": {
      const operand = sub(expr.operand);
      if (!isNumeric(operand.type) && operand.type !== "duration") {
        throw invalidExpression(option, `${describe(expr.operand)} is not a number or a duration`);
      }
      return { kind: "negate", type: operand.type, operand };
    }
    case "parameterAlias":
      return bindAlias(scope, expr);
    case "binary": {
      // an alias from server code takes the type of the other side
      let left: BoundExpr;
      let right: BoundExpr;
      if (expr.left.kind === "parameterAlias" && expr.right.kind !== "parameterAlias") {
        right = sub(expr.right);
        left = bindAlias(scope, expr.left, right);
      } else {
        left = sub(expr.left);
        right = expr.right.kind === "parameterAlias" ? bindAlias(scope, expr.right, left) : sub(expr.right);
      }
      switch (expr.op) {
        case "and":
        case "or":
          for (const [side, e] of [
            [left, expr.left],
            [right, expr.right],
          ] as const) {
            if (side.type !== "boolean" && side.type !== "null") {
              throw invalidExpression(
                option,
                `${expr.op} needs true/false operands, and ${describe(e)} is ${side.type}`,
              );
            }
          }
          return { kind: "binary", type: "boolean", op: expr.op, left, right };
        case "eq":
        case "ne":
        case "gt":
        case "ge":
        case "lt":
        case "le":
          if (!comparable(left, right)) {
            throw invalidExpression(option, `${describe(expr)} compares ${left.type} with ${right.type}`);
          }
          right = coerce(option, left, right);
          left = coerce(option, right, left);
          if (expr.op !== "eq" && expr.op !== "ne" && (left.type === "null" || right.type === "null")) {
            throw invalidExpression(option, `${describe(expr)}: only eq and ne can compare with null`);
          }
          return { kind: "binary", type: "boolean", op: expr.op, left, right };
        case "has":
          throw invalidExpression(
            option,
            "has applies to flag enumerations, which this model does not declare; use eq",
          );
        case "add":
        case "sub": {
          // a string literal next to a date, time or duration may be a duration without its prefix
          if (isTemporal(left.type)) right = asDuration(right);
          if (isTemporal(right.type)) left = asDuration(left);
          if (isTemporal(left.type) || isTemporal(right.type)) {
            const type = temporalResult(expr.op, left.type, right.type);
            if (type === undefined) {
              throw invalidExpression(
                option,
                `${describe(expr)}: ${left.type} ${expr.op} ${right.type} is not defined; ${expr.op === "add" ? "add a duration to a date, a time or an instant" : "subtract a duration, or two values of one kind"}`,
              );
            }
            return { kind: "binary", type, op: expr.op, left, right };
          }
          return arithmetic(option, expr, left, right);
        }
        case "mul":
        case "div":
        case "divby":
        case "mod":
          return arithmetic(option, expr, left, right);
      }
      break;
    }
    case "in": {
      const operand = sub(expr.operand);
      // `X in @list`: the alias holds the whole list
      const items: [BoundExpr, Expr][] =
        "kind" in expr.list
          ? bindAliasList(scope, expr.list, operand, scope.limits.maxInListLength).map((b) => [b, expr.list as Expr])
          : expr.list.map((item) => [
              item.kind === "parameterAlias" ? bindAlias(scope, item, operand) : sub(item),
              item,
            ]);
      const list = items.map(([bound, item]) => {
        if (!comparable(operand, bound)) {
          throw invalidExpression(
            option,
            `${describe(item)} (${bound.type}) cannot be compared with ${describe(expr.operand)}`,
          );
        }
        return coerce(option, operand, bound);
      });
      return { kind: "in", type: "boolean", operand, list };
    }
    case "call": {
      // function names are ABNF strings, so case-insensitive like the operators (RFC 5234)
      const name = expr.name.toLowerCase();
      const signature = Object.hasOwn(functions, name) ? functions[name] : undefined;
      if (signature === undefined) {
        throw invalidExpression(option, `unknown function ${expr.name}(), e.g. contains, startswith, year`);
      }
      const min = signature.params.length - (signature.optional ?? 0);
      if (expr.args.length < min || expr.args.length > signature.params.length) {
        throw invalidExpression(
          option,
          `${expr.name}() takes ${min === signature.params.length ? min : `${min} to ${signature.params.length}`} arguments`,
        );
      }
      const args = expr.args.map((arg, i) => {
        const bound = sub(arg);
        if (!accepts(signature.params[i]!, bound.type)) {
          throw invalidExpression(
            option,
            `argument ${i + 1} of ${expr.name}() must be ${describeParam(signature.params[i]!)}, and ${describe(arg)} is ${bound.type}`,
          );
        }
        return bound;
      });
      const type = signature.returns === "arg0" ? (args[0]?.type ?? "null") : signature.returns;
      return { kind: "call", type, name, args };
    }
    case "case":
      return bindCase(scope, expr);
    case "lambda": {
      const resolved = resolvePath(scope, expr.collection.segments);
      if (resolved.kind !== "collection") {
        throw invalidExpression(
          option,
          `${expr.op}() applies to a collection, and ${describe(expr.collection)} is not one`,
        );
      }
      if (expr.variable === null || expr.predicate === null) {
        return {
          kind: "lambda",
          type: "boolean",
          op: expr.op,
          collection: resolved.path,
          variable: null,
          predicate: null,
        };
      }
      if (expr.variable === "$it" || scope.variables.has(expr.variable)) {
        throw invalidExpression(option, `the lambda variable "${expr.variable}" is already in use`);
      }
      const variables = new Map(scope.variables).set(expr.variable, resolved.path.item);
      const predicate = sub(expr.predicate, { ...scope, variables });
      if (predicate.type !== "boolean")
        throw invalidExpression(option, `the condition of ${expr.op}() must be true/false`);
      return {
        kind: "lambda",
        type: "boolean",
        op: expr.op,
        collection: resolved.path,
        variable: expr.variable,
        predicate,
      };
    }
  }
  throw invalidExpression(option, `cannot evaluate ${describe(expr)}`);
}

/**
 * `case(c1:v1, c2:v2, …)`: the conditions true/false, the values of one type (integers and
 * decimals mix as decimals, null goes with anything); no branch that holds gives null.
 */
function bindCase(scope: BindScope, expr: CaseExpr): BoundExpr {
  const branches = expr.branches.map((branch) => ({
    when: bindPredicate(scope, branch.when),
    value: bindExpr(scope, branch.value),
    source: branch.value,
  }));
  let type: ValueType = "null";
  let first: Expr | undefined;
  for (const { value, source } of branches) {
    if (value.kind === "lambda") throw invalidExpression(scope.option, `case() cannot return ${describe(source)}`);
    if (value.type === "null" || value.type === type) continue;
    if (type === "null") {
      type = value.type;
      first = source;
    } else if (isNumeric(type) && isNumeric(value.type)) type = "decimal";
    else {
      throw invalidExpression(
        scope.option,
        `the values of case() must be of one type, and ${describe(first!)} is ${type} while ${describe(source)} is ${value.type}`,
      );
    }
  }
  return { kind: "case", type, branches: branches.map(({ when, value }) => ({ when, value })) };
}

/** a `$filter` (or `filter()` in `$apply`): must be true/false */
export function bindPredicate(scope: BindScope, expr: Expr): BoundExpr {
  const bound = bindExpr(scope, expr);
  if (bound.type !== "boolean") {
    throw invalidExpression(
      scope.option,
      `the condition must be true or false, and ${describe(expr)} is ${bound.type}`,
    );
  }
  return bound;
}
