/**
 * What a resource path addresses, against the model (spec 4.2, 4.8; OData 4.01 URL conventions
 * §4): an entity set, its `$count`, one record by key (`(<guid>)`, `(Guid=<guid>)`), a method
 * (unqualified, or qualified by the model's namespace or alias as `$metadata` declares them), or
 * what a record's navigation properties lead to: a related record through references, the items
 * of an owned collection (or their `$count`), one of those items by its key, a complex value.
 * Unknown names are a 404 and malformed keys a 400, each naming what is wrong.
 *
 * An owned item under its owner (`SalesOrder(…)/Details(…)`, a key after a collection-valued
 * navigation property: ABNF collectionNavPath) binds as the item at its canonical address, in
 * its own entity set (`SalesOrderDetail(…)`, metadata/edm-container.ts), whatever follows
 * it, with the owner it must belong to (`owners`): one read, write or call for both addresses,
 * and a check that the owner holds the item before it.
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

/**
 * An owned item named by its key under its owner: `SalesOrder(…)/Details(…)`. The path goes on
 * from the item as from `SalesOrderDetail(…)`; the owner must hold it.
 */
export interface Ownership {
  /** the owner: the record the path names by key (or the item before this one), and the to-one steps from it */
  readonly owner: NavigationSource;
  /** the owner's collection property, `Details` */
  readonly name: string;
  readonly item: AnyEntity;
  /** the item's reference back to its owner */
  readonly inverse: ColumnMapping;
  /** the item's Guid, lower case */
  readonly key: string;
}

/** a path through owned items by key: the owners each item must belong to, outermost first */
export interface Held {
  readonly owners?: readonly Ownership[];
}

/** a method call (spec 4.8): `{Entity}({key})/{Name}…` or `{Entity}/{Name}…` */
export interface MethodPath extends Held {
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

export type BoundPath = (
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
  | MethodPath
) &
  Held;

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
  if (!isGuid(key)) throw new ServiceError("InvalidKey", `The key "${key}" is not a Guid.`, "path");
  return key.toLowerCase();
}

const KEY_PROPERTY = "Guid";

/**
 * The key in `Entity(…)` (or `Collection(…)` for an owned item, `segment` its name as written):
 * one value, unnamed or named `Guid`, that is a Guid
 */
function keyIn(entity: AnyEntity, args: readonly SegmentArgument[], segment = entity.name): string {
  const [first] = args;
  const forms = `${segment}(<guid>) or ${segment}(Guid=<guid>)`;
  if (first === undefined || args.length > 1) {
    throw new ServiceError("InvalidKey", `${entity.name} is addressed by one key, its Guid: ${forms}.`, "path");
  }
  if (first.name !== null && first.name !== KEY_PROPERTY) {
    const hint =
      first.name.toLowerCase() === "guid" ? ` Names are case sensitive: did you mean "${KEY_PROPERTY}"?` : "";
    throw new ServiceError(
      "InvalidKey",
      `"${first.name}" is not the key of ${entity.name}, which is addressed by its Guid: ${forms}.${hint}`,
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
  if (head.args !== null) return fromRecord(model, entity, keyIn(entity, head.args), rest, []);
  const [next, ...more] = rest;
  if (next === undefined) return { kind: "collection", entity };
  if (next.name === "$count" && next.qualifier === null) {
    if (next.args !== null || more.length > 0) {
      throw badRequest("InvalidPath", "'$count' ends a path and takes no parentheses.", "path");
    }
    return { kind: "count", entity };
  }
  return method(model, entity, null, next, more.length === 0);
}

/** what follows the record `entity(key)`, held by `owners`: nothing, a method, or its navigation properties */
function fromRecord(
  model: Model,
  entity: AnyEntity,
  key: string,
  segments: readonly PathSegment[],
  owners: readonly Ownership[],
): BoundPath {
  const held = owners.length === 0 ? {} : { owners };
  const [next, ...more] = segments;
  if (next === undefined) return { kind: "entity", entity, key, ...held };
  if (next.name === "$count" && next.qualifier === null) throw countOfOne();
  if (next.qualifier !== null || !isMember(entity, next.name)) {
    return { ...method(model, entity, key, next, more.length === 0), ...held };
  }
  return navigate(model, { root: entity, key, via: [] }, entity, segments, owners);
}

/** a method of `entity`, bound to the record `key` or (null) to the collection */
function method(
  model: Model,
  entity: AnyEntity,
  key: string | null,
  segment: PathSegment,
  isLast: boolean,
): MethodPath {
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
}

const countOfOne = () => badRequest("InvalidPath", "'$count' applies to a collection, not to a single record.", "path");

const isMember = (entity: AnyEntity, name: string) =>
  Object.hasOwn(entity.fields, name) || Object.hasOwn(entity.virtuals, name);

/** follows navigation segments from `at`, the record the steps in `source.via` lead to, which `owners` hold */
function navigate(
  model: Model,
  source: NavigationSource,
  at: AnyEntity,
  segments: readonly PathSegment[],
  owners: readonly Ownership[],
): BoundPath {
  const [segment, ...rest] = segments as [PathSegment, ...PathSegment[]];
  const { name } = segment;
  const held = owners.length === 0 ? {} : { owners };
  if (name === "$count") throw countOfOne();
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
    if (field.kind !== "collection") {
      throw badRequest("InvalidPath", `${at.name}.${name} takes no key: it leads to one record.`, "path");
    }
    // an owned item by key: the path goes on from the item, which this owner must hold
    const item = field.target;
    const key = keyIn(item, segment.args, name);
    const inverse = columnOf(item, [field.inverse])!;
    return fromRecord(model, item, key, rest, [...owners, { owner: source, name, item, inverse, key }]);
  }
  switch (field.kind) {
    case "reference": {
      const target = model.entity(field.target)!;
      const step = { ...source, via: [...source.via, { column: columnOf(at, [name])!, target }] };
      return rest.length === 0
        ? { kind: "related", entity: target, source: step, ...held }
        : navigate(model, step, target, rest, owners);
    }
    case "collection": {
      const [count, ...beyond] = rest;
      const counted = count !== undefined && count.name === "$count" && count.args === null && beyond.length === 0;
      if (count !== undefined && !counted) {
        throw badRequest(
          "InvalidPath",
          `Only '$count' can follow the collection ${at.name}.${name} in a path; an item of it is ${name}(<guid>).`,
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
        ...held,
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
          ...held,
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
        ? { kind: "related", entity: target, source: step, ...held }
        : navigate(model, step, target, beyond, owners);
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
