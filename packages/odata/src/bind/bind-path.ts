/**
 * Resolves a member path (`PrimaryContact/MailingAddress/State`, `d/Quantity`, `Details/$count`)
 * against the model: through complex values and to-one references, case sensitive, refusing
 * virtual properties where SQL needs persisted ones.
 */
import { type AnyEntity, columnOf, type Model, type PersistedField } from "@bizdata/core";
import type { QueryLimits } from "../limits.js";
import { invalidExpression, unknownProperty, virtualNotAllowed } from "./bind-errors.js";
import type { ParameterAliases } from "./bind-parameter-alias.js";
import { type BoundExpr, type CollectionPath, type Navigation, type RangeVariable, valueTypeOf } from "./bound-expr.js";

export interface BindScope {
  readonly model: Model;
  /** the query option being bound, for messages (`$filter`, `$orderby`, …) */
  readonly option: string;
  /** the entity `$it` (and unqualified paths) refer to */
  readonly entity: AnyEntity;
  /** lambda variables in scope, innermost last */
  readonly variables: ReadonlyMap<string, AnyEntity>;
  /** `$compute` aliases usable by name */
  readonly aliases: ReadonlyMap<string, BoundExpr>;
  /** values of parameter aliases (`@name`) */
  readonly parameters: ParameterAliases;
  readonly limits: QueryLimits;
}

const names = (entity: AnyEntity) => [...Object.keys(entity.fields), ...Object.keys(entity.virtuals)];

export type ResolvedPath =
  | { readonly kind: "value"; readonly expr: BoundExpr }
  | { readonly kind: "collection"; readonly path: CollectionPath };

export function resolvePath(scope: BindScope, segments: readonly string[]): ResolvedPath {
  const { model, option } = scope;
  let from: RangeVariable = null;
  let entity = scope.entity;
  let i = 0;
  const head = segments[0]!;
  if (head === "$it") {
    i = 1;
  } else if (scope.variables.has(head)) {
    from = head;
    entity = scope.variables.get(head)!;
    i = 1;
  } else if (segments.length === 1 && scope.aliases.has(head)) {
    const expr = scope.aliases.get(head)!;
    return { kind: "value", expr: { kind: "alias", type: expr.type, name: head, expr } };
  }
  if (i === segments.length) throw invalidExpression(option, `"${segments.join("/")}" names a record, not a value`);
  const via: Navigation[] = [];
  while (i < segments.length) {
    const name = segments[i]!;
    const rest = segments.length - i - 1;
    if (name === "$count") throw invalidExpression(option, "$count must follow a collection, as in Details/$count");
    const field = Object.hasOwn(entity.fields, name) ? (entity.fields[name] as PersistedField) : undefined;
    if (field === undefined) {
      if (Object.hasOwn(entity.virtuals, name)) throw virtualNotAllowed(entity.name, name, option);
      throw unknownProperty(entity.name, name, option, names(entity));
    }
    switch (field.kind) {
      case "collection": {
        const inverse = columnOf(field.target, [field.inverse])!;
        const path: CollectionPath = { from, via, owner: entity, item: field.target, inverse, name };
        if (rest === 0) return { kind: "collection", path };
        if (rest === 1 && segments[i + 1] === "$count") {
          return { kind: "value", expr: { kind: "count", type: "integer", collection: path } };
        }
        throw invalidExpression(option, `${entity.name}.${name} is a collection: use any(), all() or $count on it`);
      }
      case "complex": {
        const member = segments[i + 1];
        if (member === undefined)
          throw invalidExpression(option, `${entity.name}.${name} is a complex value; name one of its members`);
        const memberField = Object.hasOwn(field.fields, member) ? field.fields[member] : undefined;
        if (memberField === undefined)
          throw unknownProperty(`${entity.name}.${name}`, member, option, Object.keys(field.fields));
        const column = columnOf(entity, [name, member])!;
        if (rest === 1)
          return { kind: "value", expr: { kind: "column", type: valueTypeOf(column), from, via, column } };
        if (memberField.kind !== "reference") {
          throw invalidExpression(option, `${entity.name}.${name}/${member} is a value; nothing can follow it`);
        }
        entity = model.entity(memberField.target)!;
        via.push({ column, target: entity });
        i += 2;
        continue;
      }
      case "reference": {
        const column = columnOf(entity, [name])!;
        if (rest === 0) return { kind: "value", expr: { kind: "column", type: "guid", from, via, column } };
        entity = model.entity(field.target)!;
        via.push({ column, target: entity });
        i += 1;
        continue;
      }
      default: {
        if (rest > 0) throw invalidExpression(option, `${entity.name}.${name} is a value; nothing can follow it`);
        const column = columnOf(entity, [name])!;
        return { kind: "value", expr: { kind: "column", type: valueTypeOf(column), from, via, column } };
      }
    }
  }
  throw invalidExpression(option, `"${segments.join("/")}" names a record, not a value`);
}
