/**
 * `$select` against the model. Without `$select` only `Guid` is returned (spec 2.1); `*` selects
 * every persisted property (virtual ones, which cost computation, only when named). `$compute`
 * aliases are selectable by name.
 */
import { type AnyEntity, badRequest, columnOf, type Model, type PersistedField, persistedColumns } from "@bizdata/core";
import type { SelectItem } from "../syntax/ast.js";
import { unknownProperty } from "./bind-errors.js";
import type { BoundExpr } from "./bound-expr.js";
import type { SelectedProperty } from "./read-query.js";

const propertyNames = (entity: AnyEntity, aliases: ReadonlyMap<string, BoundExpr>) => [
  ...Object.keys(entity.fields),
  ...Object.keys(entity.virtuals),
  ...aliases.keys(),
  "RecordReadOnly",
];

function bindProperty(
  model: Model,
  entity: AnyEntity,
  name: string,
  option: string,
  aliases: ReadonlyMap<string, BoundExpr>,
): SelectedProperty {
  if (name === "RecordReadOnly") {
    const conditional = Object.values(entity.methods).some(
      (m) => !m.isStatic && model.subscribers(m).some((s) => s.disableIf),
    );
    return { kind: "recordReadOnly", name, model, entity, dependsOn: conditional ? persistedColumns(entity) : [] };
  }
  const computed = aliases.get(name);
  if (computed !== undefined) return { kind: "computed", name, expr: computed };
  const field = Object.hasOwn(entity.fields, name) ? (entity.fields[name] as PersistedField) : undefined;
  if (field !== undefined) {
    switch (field.kind) {
      case "collection":
        throw badRequest(
          "NotSelectable",
          `${entity.name}.${name} is a collection; use $expand=${name} to read its items.`,
          option,
        );
      case "complex":
        return { kind: "complex", name, members: persistedColumns(entity).filter((c) => c.path[0] === name) };
      default:
        return { kind: "column", name, column: columnOf(entity, [name])! };
    }
  }
  const virtual = Object.hasOwn(entity.virtuals, name) ? entity.virtuals[name] : undefined;
  if (virtual !== undefined) {
    return {
      kind: "virtual",
      name,
      field: virtual,
      dependsOn: virtual.dependsOn.flatMap((dep: string) => persistedColumns(entity).filter((c) => c.path[0] === dep)),
    };
  }
  throw unknownProperty(entity.name, name, option, propertyNames(entity, aliases));
}

export function bindSelect(
  model: Model,
  entity: AnyEntity,
  items: readonly SelectItem[] | undefined,
  aliases: ReadonlyMap<string, BoundExpr> = new Map(),
  option = "$select",
): SelectedProperty[] {
  const guid = bindProperty(model, entity, "Guid", option, aliases);
  if (items === undefined) return [guid];
  const names: string[] = [];
  for (const item of items) {
    if (item.path.length === 1 && item.path[0] === "*") {
      for (const [name, field] of Object.entries(entity.fields as Record<string, PersistedField>)) {
        if (field.kind !== "collection") names.push(name);
      }
      continue;
    }
    if (item.path.length > 1) {
      // `MailingAddress/City` selects the whole complex value: members are cheap and it keeps one shape
      const [head] = item.path as [string];
      const field = Object.hasOwn(entity.fields, head) ? (entity.fields[head] as PersistedField) : undefined;
      if (field?.kind !== "complex") {
        throw badRequest(
          "NotSelectable",
          `"${item.path.join("/")}" is not a property path of ${entity.name}; use $expand for related entities.`,
          option,
        );
      }
      const member = item.path[1]!;
      if (!Object.hasOwn(field.fields, member)) {
        throw unknownProperty(`${entity.name}.${head}`, member, option, Object.keys(field.fields));
      }
      names.push(head);
      continue;
    }
    names.push(item.path[0]!);
  }
  // Guid first, each property once, in the order asked for
  const unique = [...new Set(["Guid", ...names])];
  return unique.map((name) => (name === "Guid" ? guid : bindProperty(model, entity, name, option, aliases)));
}
