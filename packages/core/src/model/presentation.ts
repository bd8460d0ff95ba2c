/**
 * How a generic client presents an entity (issue 41): its name, the columns of its lists and the
 * groups of its forms. Declared beside the fields, written into `$metadata` as the standard
 * vocabulary terms (`Common.Label`, `UI.HeaderInfo`, `UI.LineItem`, `UI.FieldGroup`) and checked
 * by `defineModel` against the model, since a path may lead through a reference into its target.
 */
import type { PersistedField } from "./fields.js";
import type { AnyEntity } from "./model.js";

/** a group of fields an object page shows under one caption */
export interface FieldGroup {
  readonly label?: string;
  /** property paths: a property, `Reference/Property` or `Complex/Member` */
  readonly fields: readonly string[];
}

export interface Presentation {
  /** the entity's name for a person, singular (`Sales order`) */
  readonly label?: string;
  /** the same in the plural (`Sales orders`), a list's title; defaults to the label */
  readonly pluralLabel?: string;
  /** the columns of a list, as property paths (a property, `Reference/Property`, `Complex/Member`) */
  readonly lineItem?: readonly string[];
  /** an object page's groups, in order, keyed by an identifier (the annotation's qualifier) */
  readonly fieldGroups?: Readonly<Record<string, FieldGroup>>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** the field or virtual property `name` of `entity`, or undefined */
function propertyOf(entity: AnyEntity, name: string): PersistedField | { kind: "virtual" } | undefined {
  if (Object.hasOwn(entity.fields, name)) return (entity.fields as Record<string, PersistedField>)[name];
  if (Object.hasOwn(entity.virtuals, name)) return { kind: "virtual" };
  return undefined;
}

/** why `path` names no shown value of `entity` (a collection is shown as a table, never as a column), or undefined */
function pathProblem(entity: AnyEntity, path: string, entities: ReadonlyMap<string, AnyEntity>): string | undefined {
  const [top, member, ...rest] = path.split("/");
  const field = propertyOf(entity, top!);
  if (field === undefined) return `"${top}" is no property of ${entity.name}`;
  if (rest.length > 0) return "a path has at most two steps";
  if (member === undefined)
    return field.kind === "collection" ? "a collection cannot be a column or a field" : undefined;
  if (field.kind === "complex")
    return Object.hasOwn(field.fields, member) ? undefined : `"${member}" is no member of ${top}`;
  if (field.kind !== "reference") return `"${top}" is neither a reference nor a complex property`;
  const target = entities.get(field.target)!;
  const next = propertyOf(target, member);
  if (next === undefined) return `"${member}" is no property of ${target.name}`;
  return next.kind === "collection" || next.kind === "complex"
    ? `${target.name}.${member} is not a single value`
    : undefined;
}

/** throws, naming the fix, where the entity's presentation or its references' value helps name what is not there */
export function checkPresentation(entity: AnyEntity, entities: ReadonlyMap<string, AnyEntity>): void {
  const check = (where: string, paths: readonly string[]) => {
    for (const path of paths) {
      const problem = pathProblem(entity, path, entities);
      if (problem !== undefined) throw new Error(`${entity.name} ${where}: "${path}": ${problem}.`);
    }
  };
  check("lineItem", entity.lineItem ?? []);
  for (const [qualifier, group] of Object.entries(entity.fieldGroups ?? {})) {
    if (!IDENTIFIER.test(qualifier))
      throw new Error(`${entity.name} fieldGroups: "${qualifier}" is not an identifier.`);
    if (group.fields.length === 0) throw new Error(`${entity.name} fieldGroups.${qualifier}: name at least one field.`);
    check(`fieldGroups.${qualifier}`, group.fields);
  }
  const references = Object.entries(entity.fields as Record<string, PersistedField>).flatMap(([name, field]) =>
    field.kind === "complex"
      ? Object.entries(field.fields).map(([member, f]) => [`${name}/${member}`, f] as const)
      : [[name, field] as const],
  );
  for (const [name, field] of references) {
    if (field.kind !== "reference" || field.valueHelp === undefined) continue;
    const target = entities.get(field.target)!;
    for (const shown of field.valueHelp) {
      const p = propertyOf(target, shown);
      if (p === undefined || p.kind === "collection" || p.kind === "complex" || p.kind === "reference")
        throw new Error(`${entity.name}.${name} valueHelp: "${shown}" is no scalar property of ${target.name}.`);
    }
  }
}
