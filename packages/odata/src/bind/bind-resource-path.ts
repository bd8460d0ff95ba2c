/**
 * What a resource path addresses, against the model (spec 4.2, 4.8; OData 4.01 URL conventions
 * §4): an entity set, its `$count`, one record by key (`(<guid>)`, `(Guid=<guid>)`), a method
 * (unqualified, or qualified by the model's namespace or alias as `$metadata` declares them), or
 * what a record's navigation properties lead to: a related record through references, the items
 * of an owned collection (or their `$count`), a complex value. Unknown names are a 404 and
 * malformed keys a 400, each naming what is wrong.
 */
import {
  type AnyEntity,
  badRequest,
  type ColumnMapping,
  columnOf,
  isGuid,
  type Model,
  notFound,
  type PersistedField,
  persistedColumns,
  ServiceError,
} from "@bizdata/core";
import type { Literal, PathSegment, ResourcePath, SegmentArgument } from "../syntax/ast.js";
import { printExpr } from "../syntax/print-expr.js";
import type { Navigation } from "./bound-expr.js";

/** the record a navigation starts at, and the to-one steps from it to where it goes on */
export interface NavigationSource {
  readonly root: AnyEntity;
  /** the Guid of the root record, lower case */
  readonly key: string;
  readonly via: readonly Navigation[];
}

/** a method call (spec 4.8): `{Entity}({key})/{Name}…` or `{Entity}/{Name}…` */
export interface MethodPath {
  readonly kind: "method";
  readonly entity: string;
  /** null for a static (collection-bound) method */
  readonly key: string | null;
  readonly method: string;
  /** true when written with `()`, required for read (GET) methods (spec 4.8 rule 4) */
  readonly parens: boolean;
  /** inline parameters `Name(a=1,b='x')` by name */
  readonly inlineArgs: Readonly<Record<string, Literal>>;
}

export type BoundPath =
  | { readonly kind: "collection" | "count"; readonly entity: AnyEntity }
  | { readonly kind: "entity"; readonly entity: AnyEntity; readonly key: string }
  /** a record reached from a keyed one through references: `SalesOrder(…)/SellToCustomer` */
  | { readonly kind: "related"; readonly entity: AnyEntity; readonly source: NavigationSource }
  /** the items of an owned collection, or their number: `SalesOrder(…)/Details[/$count]` */
  | {
      readonly kind: "contained";
      readonly entity: AnyEntity;
      readonly source: NavigationSource;
      readonly name: string;
      readonly inverse: ColumnMapping;
      readonly count: boolean;
    }
  /** a complex value of a record: `Contact(…)/MailingAddress` */
  | {
      readonly kind: "complex";
      /** the record the value belongs to */
      readonly entity: AnyEntity;
      readonly source: NavigationSource;
      readonly name: string;
      readonly members: readonly ColumnMapping[];
    }
  | MethodPath;

export function resolveEntity(model: Model, name: string): AnyEntity {
  const entity = model.entity(name);
  if (entity === undefined) {
    const suggestion = [...model.entities.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
    throw notFound(
      `There is no entity set "${name}"${suggestion ? `; names are case sensitive: did you mean "${suggestion}"?` : "."}`,
      name,
    );
  }
  return entity;
}

/** a Guid key, lower case; anything else is a 400 naming it */
export function keyOf(key: string): string {
  if (!isGuid(key)) throw new ServiceError(400, "InvalidKey", `The key "${key}" is not a Guid.`, "path");
  return key.toLowerCase();
}

const KEY_PROPERTY = "Guid";

/** the key in `Entity(…)`: one value, unnamed or named `Guid`, that is a Guid */
function keyIn(entity: AnyEntity, args: readonly SegmentArgument[]): string {
  const [first] = args;
  if (first === undefined || args.length > 1) {
    throw new ServiceError(
      400,
      "InvalidKey",
      `${entity.name} is addressed by one key, its Guid: ${entity.name}(<guid>) or ${entity.name}(Guid=<guid>).`,
      "path",
    );
  }
  if (first.name !== null && first.name !== KEY_PROPERTY) {
    const hint =
      first.name.toLowerCase() === "guid" ? ` Names are case sensitive: did you mean "${KEY_PROPERTY}"?` : "";
    throw new ServiceError(
      400,
      "InvalidKey",
      `"${first.name}" is not the key of ${entity.name}, which is addressed by its Guid: ${entity.name}(<guid>) or ${entity.name}(Guid=<guid>).${hint}`,
      first.name,
    );
  }
  const { value } = first;
  return keyOf(value.kind === "guid" || value.kind === "string" ? value.value : printExpr(value));
}

/** the parameters of a method segment by name; a key in a method's parentheses is refused */
function inlineArgs(entity: AnyEntity, segment: PathSegment): Record<string, Literal> {
  // no prototype: a parameter called `__proto__` stays a plain key
  const named: Record<string, Literal> = Object.create(null);
  for (const arg of segment.args ?? []) {
    if (arg.name === null) {
      throw badRequest(
        "InvalidMethodCall",
        `${entity.name}.${segment.name} takes named parameters: ${segment.name}(name=value,…).`,
        segment.name,
      );
    }
    named[arg.name] = arg.value;
  }
  return named;
}

/** the name a segment is written with, its qualifier included */
const written = (segment: PathSegment) =>
  segment.qualifier === null ? segment.name : `${segment.qualifier}.${segment.name}`;

export function bindResourcePath(model: Model, path: ResourcePath): BoundPath {
  const [head, ...rest] = path.segments as [PathSegment, ...PathSegment[]];
  const entity = resolveEntity(model, written(head));
  const key = head.args === null ? null : keyIn(entity, head.args);

  const method = (segment: PathSegment, isLast: boolean): MethodPath => {
    if (segment.qualifier !== null && segment.qualifier !== model.namespace && segment.qualifier !== model.alias) {
      throw notFound(
        `There is no operation "${written(segment)}": operations are qualified by "${model.namespace}"${model.alias === undefined ? "" : ` or its alias "${model.alias}"`}, or not at all.`,
        written(segment),
      );
    }
    if (segment.qualifier === null && !Object.hasOwn(entity.methods, segment.name)) {
      const what = key === null ? "method" : "navigation property or method";
      const names = [...Object.keys(entity.methods), ...(key === null ? [] : Object.keys(entity.fields))];
      const suggestion = names.find((n) => n.toLowerCase() === segment.name.toLowerCase());
      throw notFound(
        `${entity.name} has no ${what} "${segment.name}"; names are case sensitive${suggestion ? `: did you mean "${suggestion}"?` : "."}`,
        segment.name,
      );
    }
    if (!isLast) {
      throw badRequest("InvalidPath", `Nothing can follow the method ${written(segment)} in a path.`, "path");
    }
    return {
      kind: "method",
      entity: entity.name,
      key,
      method: segment.name,
      parens: segment.args !== null,
      inlineArgs: inlineArgs(entity, segment),
    };
  };

  const [next, ...more] = rest;
  if (next === undefined) return key === null ? { kind: "collection", entity } : { kind: "entity", entity, key };
  if (key === null) {
    if (next.name === "$count" && next.qualifier === null) {
      if (next.args !== null || more.length > 0) {
        throw badRequest("InvalidPath", "'$count' ends a path and takes no parentheses.", "path");
      }
      return { kind: "count", entity };
    }
    return method(next, more.length === 0);
  }
  if (next.qualifier !== null || !isMember(entity, next.name)) return method(next, more.length === 0);
  return navigate(model, { root: entity, key, via: [] }, entity, rest);
}

const isMember = (entity: AnyEntity, name: string) =>
  Object.hasOwn(entity.fields, name) || Object.hasOwn(entity.virtuals, name);

/** follows navigation segments from `at`, the record the steps in `source.via` lead to */
function navigate(model: Model, source: NavigationSource, at: AnyEntity, segments: readonly PathSegment[]): BoundPath {
  const [segment, ...rest] = segments as [PathSegment, ...PathSegment[]];
  const { name } = segment;
  if (name === "$count")
    throw badRequest("InvalidPath", "'$count' applies to a collection, not to a single record.", "path");
  const field = Object.hasOwn(at.fields, name) ? (at.fields[name] as PersistedField) : undefined;
  if (field === undefined || segment.qualifier !== null) {
    if (Object.hasOwn(at.virtuals, name)) throw notAddressable(at, name, "a computed property");
    const suggestion = Object.keys(at.fields).find((k) => k.toLowerCase() === name.toLowerCase());
    throw notFound(
      `${at.name} has no navigation property "${written(segment)}"${suggestion ? `; names are case sensitive: did you mean "${suggestion}"?` : "."}`,
      written(segment),
    );
  }
  if (segment.args !== null) {
    throw badRequest(
      "InvalidPath",
      field.kind === "collection"
        ? `An item of ${at.name}.${name} is read as ${field.target.name}(<guid>), or found with $filter on ${at.name}(…)/${name}.`
        : `${at.name}.${name} takes no key: it leads to one record.`,
      "path",
    );
  }
  switch (field.kind) {
    case "reference": {
      const target = model.entity(field.target)!;
      const step = { ...source, via: [...source.via, { column: columnOf(at, [name])!, target }] };
      return rest.length === 0
        ? { kind: "related", entity: target, source: step }
        : navigate(model, step, target, rest);
    }
    case "collection": {
      const [count, ...beyond] = rest;
      const counted = count !== undefined && count.name === "$count" && count.args === null && beyond.length === 0;
      if (count !== undefined && !counted) {
        throw badRequest(
          "InvalidPath",
          `Only '$count' can follow the collection ${at.name}.${name} in a path.`,
          "path",
        );
      }
      return {
        kind: "contained",
        entity: field.target,
        source,
        name,
        inverse: columnOf(field.target, [field.inverse])!,
        count: counted,
      };
    }
    case "complex": {
      const [member, ...beyond] = rest;
      if (member === undefined) {
        return {
          kind: "complex",
          entity: at,
          source,
          name,
          members: persistedColumns(at).filter((c) => c.path[0] === name),
        };
      }
      const memberField = Object.hasOwn(field.fields, member.name) ? field.fields[member.name] : undefined;
      if (memberField?.kind !== "reference" || member.qualifier !== null || member.args !== null) {
        if (memberField !== undefined) throw notAddressable(at, `${name}/${member.name}`, "a value");
        throw notFound(`${at.name}.${name} has no navigation property "${written(member)}".`, written(member));
      }
      const target = model.entity(memberField.target)!;
      const step = { ...source, via: [...source.via, { column: columnOf(at, [name, member.name])!, target }] };
      return beyond.length === 0
        ? { kind: "related", entity: target, source: step }
        : navigate(model, step, target, beyond);
    }
    default:
      throw notAddressable(at, name, "a value");
  }
}

const notAddressable = (entity: AnyEntity, name: string, what: string) =>
  badRequest(
    "InvalidPath",
    `${entity.name}.${name} is ${what}, not a related record: read it with $select=${name.split("/")[0]}.`,
    "path",
  );
