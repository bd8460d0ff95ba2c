/**
 * Literals to bound values: a literal of the URL by its lexical form, and a value that server
 * code supplies for a parameter alias, either typed against what it is compared with or by its
 * JavaScript type. Either way the value ends up a statement parameter, never statement text.
 */
import { isDuration, isGuid, isTimeOfDay } from "@bizdata/core";
import type { Literal } from "../syntax/ast.js";
import { invalidExpression } from "./bind-errors.js";
import type { BoundExpr, ValueType } from "./bound-expr.js";

export function bindLiteral(literal: Literal): BoundExpr {
  switch (literal.kind) {
    case "null":
      return { kind: "literal", type: "null", value: null };
    case "boolean":
      return { kind: "literal", type: "boolean", value: literal.value };
    case "integer":
      return { kind: "literal", type: "integer", value: literal.text };
    case "decimal":
      return { kind: "literal", type: "decimal", value: literal.text };
    case "string":
      return { kind: "literal", type: "string", value: literal.value };
    case "guid":
      return { kind: "literal", type: "guid", value: literal.value.toLowerCase() };
    case "date":
      return { kind: "literal", type: "date", value: literal.value };
    case "dateTimeOffset":
      return { kind: "literal", type: "datetime", value: literal.value };
    case "timeOfDay":
      return { kind: "literal", type: "timeOfDay", value: literal.value };
    case "duration":
      return { kind: "literal", type: "duration", value: literal.value };
  }
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

const literal = (type: ValueType, value: string | number | boolean | null): BoundExpr => ({
  kind: "literal",
  type,
  value,
});

/** the value as the literal of `type`, or undefined when it is not one */
function asType(value: unknown, type: ValueType): BoundExpr | undefined {
  switch (type) {
    case "string":
      return typeof value === "string" ? literal("string", value) : undefined;
    case "guid":
      return isGuid(value) ? literal("guid", value.toLowerCase()) : undefined;
    case "boolean":
      return typeof value === "boolean" ? literal("boolean", value) : undefined;
    case "integer":
      if (typeof value === "number") return Number.isSafeInteger(value) ? literal("integer", String(value)) : undefined;
      if (typeof value === "bigint") return literal("integer", String(value));
      return typeof value === "string" && INTEGER.test(value) ? literal("integer", value) : undefined;
    case "decimal":
      if (typeof value === "number") return Number.isFinite(value) ? literal("decimal", String(value)) : undefined;
      if (typeof value === "bigint") return literal("decimal", String(value));
      return typeof value === "string" && DECIMAL.test(value) ? literal("decimal", value) : undefined;
    case "date":
      if (value instanceof Date && !Number.isNaN(value.getTime()))
        return literal("date", value.toISOString().slice(0, 10));
      return typeof value === "string" && DATE.test(value) ? literal("date", value) : undefined;
    case "datetime":
      if (value instanceof Date && !Number.isNaN(value.getTime())) return literal("datetime", value.toISOString());
      return typeof value === "string" && DATE_TIME.test(value) ? literal("datetime", value) : undefined;
    case "timeOfDay":
      return typeof value === "string" && isTimeOfDay(value) ? literal("timeOfDay", value) : undefined;
    case "duration":
      return typeof value === "string" && isDuration(value) ? literal("duration", value) : undefined;
    case "null":
      return undefined;
  }
}

/** the type a value has by itself, when nothing it is compared with says otherwise */
function ownType(value: unknown): ValueType | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "bigint") return "integer";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "decimal";
  if (value instanceof Date) return "datetime";
  return undefined;
}

/**
 * A value from server code (`@name` supplied as a typed value) as a literal: of the type of
 * `against` when it is compared with something typed, else of its own JavaScript type.
 * `undefined` and `null` are null.
 */
export function bindValue(option: string, name: string, value: unknown, against?: BoundExpr): BoundExpr {
  if (value === null || value === undefined) return literal("null", null);
  const type = against !== undefined && against.type !== "null" ? against.type : ownType(value);
  const bound = type === undefined ? undefined : asType(value, type);
  if (bound === undefined) {
    const shown = typeof value === "string" ? `'${value}'` : value instanceof Date ? "a Date" : `a ${typeof value}`;
    throw invalidExpression(
      option,
      type === undefined
        ? `the parameter alias @${name} holds ${shown}, which is not a value an expression can use`
        : `the parameter alias @${name} holds ${shown}, which is not ${type === "integer" ? "an" : "a"} ${type} value`,
    );
  }
  return bound;
}
