/**
 * The bound (typed, model-aware) form of query expressions. Names are resolved: a property is a
 * column reached from a range variable through zero or more to-one navigations, so the compiler
 * can turn each navigation chain into one join without looking at the model again.
 */
import type { AnyEntity, ColumnMapping } from "@bizdata/core";
import type { BinaryOperator } from "../syntax/ast.js";

export type ValueType =
  | "string"
  | "integer"
  | "decimal"
  | "boolean"
  | "date"
  | "datetime"
  | "timeOfDay"
  | "duration"
  | "guid"
  | "null";

/** one to-one navigation: the reference column followed and the entity it leads to */
export interface Navigation {
  readonly column: ColumnMapping;
  readonly target: AnyEntity;
}

/** where a path starts: the resource itself (`null`) or a lambda variable */
export type RangeVariable = string | null;

export interface CollectionPath {
  readonly from: RangeVariable;
  readonly via: readonly Navigation[];
  /** the owner entity (end of `via`) and the collection's item entity and inverse column */
  readonly owner: AnyEntity;
  readonly item: AnyEntity;
  readonly inverse: ColumnMapping;
  readonly name: string;
}

export type BoundExpr =
  | { readonly kind: "literal"; readonly type: ValueType; readonly value: string | number | boolean | null }
  | {
      readonly kind: "column";
      readonly type: ValueType;
      readonly from: RangeVariable;
      readonly via: readonly Navigation[];
      readonly column: ColumnMapping;
    }
  | { readonly kind: "alias"; readonly type: ValueType; readonly name: string; readonly expr: BoundExpr }
  | {
      readonly kind: "binary";
      readonly type: ValueType;
      readonly op: BinaryOperator;
      readonly left: BoundExpr;
      readonly right: BoundExpr;
    }
  | { readonly kind: "not"; readonly type: "boolean"; readonly operand: BoundExpr }
  | { readonly kind: "negate"; readonly type: ValueType; readonly operand: BoundExpr }
  | { readonly kind: "in"; readonly type: "boolean"; readonly operand: BoundExpr; readonly list: readonly BoundExpr[] }
  | { readonly kind: "call"; readonly type: ValueType; readonly name: string; readonly args: readonly BoundExpr[] }
  | {
      readonly kind: "case";
      readonly type: ValueType;
      readonly branches: readonly { readonly when: BoundExpr; readonly value: BoundExpr }[];
    }
  | {
      readonly kind: "lambda";
      readonly type: "boolean";
      readonly op: "any" | "all";
      readonly collection: CollectionPath;
      readonly variable: string | null;
      readonly predicate: BoundExpr | null;
    }
  | { readonly kind: "count"; readonly type: "integer"; readonly collection: CollectionPath }
  /** `$apply` aggregates; the operand is null for `$count as N` */
  | {
      readonly kind: "aggregate";
      readonly type: ValueType;
      readonly method: AggregateMethod;
      readonly operand: BoundExpr | null;
    };

export type AggregateMethod = "sum" | "min" | "max" | "average" | "countdistinct" | "count";

export const valueTypeOf = (column: ColumnMapping): ValueType => {
  switch (column.field.kind) {
    case "text":
    case "enum":
      return "string";
    case "integer":
    case "decimal":
    case "boolean":
    case "date":
    case "datetime":
    case "timeOfDay":
    case "duration":
      return column.field.kind;
    case "guid":
    case "reference":
      return "guid";
  }
};

export const isNumeric = (t: ValueType) => t === "integer" || t === "decimal";
