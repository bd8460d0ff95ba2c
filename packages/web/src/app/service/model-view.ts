/**
 * What the app knows of the service, read from its CSDL JSON `$metadata` alone: entity types with
 * their properties (type, facets, captions, computed or not), references and owned collections,
 * natural keys (Core.AlternateKeys), the presentation terms (Common.Label, UI.HeaderInfo,
 * UI.LineItem, UI.FieldGroup, Common.ValueList), bound functions and actions with typed
 * parameters, and per entity set what `$filter`, `$orderby` and `$search` take. Anything the
 * document leaves out falls back to a default that still makes a usable page.
 */
export type ScalarType =
  | "Edm.String"
  | "Edm.Boolean"
  | "Edm.Int16"
  | "Edm.Int32"
  | "Edm.Int64"
  | "Edm.Decimal"
  | "Edm.Double"
  | "Edm.Date"
  | "Edm.DateTimeOffset"
  | "Edm.TimeOfDay"
  | "Edm.Duration"
  | "Edm.Guid"
  | string;

export interface ValueHelp {
  /** the entity set the values come from */
  readonly collection: string;
  /** the target's property the reference is written by (its natural key) */
  readonly key: string;
  readonly shown: readonly string[];
  readonly searchable: boolean;
}

interface PropertyBase {
  readonly name: string;
  readonly label: string;
  /** the service computes it: never written */
  readonly computed: boolean;
  readonly nullable: boolean;
}

export type PropertyView =
  | (PropertyBase & {
      readonly kind: "scalar";
      readonly type: ScalarType;
      /** the members of an enum type, in order */
      readonly members?: readonly string[];
      readonly maxLength?: number;
      readonly collection: boolean;
    })
  | (PropertyBase & { readonly kind: "complex"; readonly members: readonly PropertyView[] })
  | (PropertyBase & { readonly kind: "reference"; readonly target: string; readonly valueHelp?: ValueHelp })
  | (PropertyBase & { readonly kind: "collection"; readonly target: string; readonly partner?: string });

export interface ParameterView {
  readonly name: string;
  readonly type: ScalarType;
  readonly members?: readonly string[];
  readonly required: boolean;
  readonly defaultValue?: string;
}

export interface OperationView {
  readonly name: string;
  /** a Read method is a function (GET), a Modify method an action (POST) */
  readonly kind: "function" | "action";
  readonly description?: string;
  readonly parameters: readonly ParameterView[];
  readonly returns?: { readonly type: string; readonly collection: boolean };
}

export interface FieldGroupView {
  readonly qualifier: string;
  readonly label?: string;
  readonly fields: readonly string[];
}

export interface EntityView {
  readonly name: string;
  /** the entity set, when it has one (owned items have none) */
  readonly set?: string;
  readonly label: string;
  readonly pluralLabel: string;
  readonly properties: ReadonlyMap<string, PropertyView>;
  /** the property a record is known by besides its Guid (`Guid` when it has none) */
  readonly naturalKey: string;
  readonly lineItem?: readonly string[];
  readonly fieldGroups: readonly FieldGroupView[];
  /** the methods bound to one record */
  readonly operations: readonly OperationView[];
  readonly searchable: boolean;
  readonly nonFilterable: ReadonlySet<string>;
  readonly nonSortable: ReadonlySet<string>;
}

export interface ModelView {
  readonly entities: ReadonlyMap<string, EntityView>;
  /** the entity sets in the service document's order, with the entity each holds */
  readonly sets: readonly { readonly name: string; readonly entity: string }[];
}

type Json = Record<string, any>;

/** `bizdata.Product` or `alias.Product` → `Product` */
const local = (qualified: string) => qualified.slice(qualified.lastIndexOf(".") + 1);

const pathsOf = (fields: unknown): string[] =>
  Array.isArray(fields) ? fields.flatMap((f) => (typeof f?.Value?.$Path === "string" ? [f.Value.$Path] : [])) : [];

const restricted = (set: Json | undefined, term: string, list: string): Set<string> =>
  new Set((set?.[`@Capabilities.${term}`]?.[list] as string[] | undefined) ?? []);

/** reads a CSDL JSON document into the app's view of the model */
export function readModel(csdl: Json): ModelView {
  const containerName: string = csdl.$EntityContainer;
  const namespace = containerName.slice(0, containerName.lastIndexOf("."));
  const schema: Json = csdl[namespace] ?? {};
  const container: Json = schema[local(containerName)] ?? {};
  const setOf = new Map<string, string>();
  const sets: { name: string; entity: string }[] = [];
  for (const [name, member] of Object.entries(container)) {
    if (member?.$Collection === true && typeof member.$Type === "string") {
      setOf.set(local(member.$Type), name);
      sets.push({ name, entity: local(member.$Type) });
    }
  }
  const enumMembers = (type: string): string[] | undefined => {
    const t = schema[local(type)];
    return t?.$Kind === "EnumType" ? Object.keys(t).filter((k) => !k.startsWith("$") && !k.startsWith("@")) : undefined;
  };
  const isLocal = (type: string) => !type.startsWith("Edm.");

  const valueHelpOf = (annotation: Json | undefined): ValueHelp | undefined => {
    if (annotation === undefined || typeof annotation.CollectionPath !== "string") return undefined;
    const params: Json[] = annotation.Parameters ?? [];
    const inOut = params.find((p) => String(p["@odata.type"] ?? p["@type"] ?? "").endsWith("ValueListParameterInOut"));
    return {
      collection: annotation.CollectionPath,
      key: inOut?.ValueListProperty ?? "Guid",
      shown: params.filter((p) => p !== inOut).map((p) => String(p.ValueListProperty)),
      searchable: annotation.SearchSupported !== false,
    };
  };

  const propertiesOf = (type: Json): PropertyView[] =>
    Object.entries(type)
      .filter(([name]) => !name.startsWith("$") && !name.startsWith("@"))
      .map(([name, p]: [string, Json]): PropertyView => {
        const base = {
          name,
          label: p["@Common.Label"] ?? name,
          computed: p["@Core.Computed"] === true || p["@Core.Immutable"] === true,
          nullable: p.$Nullable === true,
        };
        const typeName: string = p.$Type ?? "Edm.String";
        if (p.$Kind === "NavigationProperty") {
          if (p.$Collection === true)
            return { ...base, kind: "collection", target: local(typeName), ...(p.$Partner && { partner: p.$Partner }) };
          const help = valueHelpOf(p["@Common.ValueList"]);
          return { ...base, kind: "reference", target: local(typeName), ...(help && { valueHelp: help }) };
        }
        const complex = isLocal(typeName) ? schema[local(typeName)] : undefined;
        if (complex?.$Kind === "ComplexType") return { ...base, kind: "complex", members: propertiesOf(complex) };
        const members = isLocal(typeName) ? enumMembers(typeName) : undefined;
        return {
          ...base,
          kind: "scalar",
          type: typeName,
          collection: p.$Collection === true,
          ...(members && { members }),
          ...(p.$MaxLength !== undefined && { maxLength: p.$MaxLength }),
        };
      });

  // bound operations by the entity type they are bound to (a single record, not a collection)
  const operations = new Map<string, OperationView[]>();
  for (const [name, overloads] of Object.entries(schema)) {
    if (!Array.isArray(overloads)) continue;
    for (const o of overloads as Json[]) {
      const [binding, ...rest] = (o.$Parameter ?? []) as Json[];
      if (o.$IsBound !== true || binding === undefined || binding.$Collection === true) continue;
      const entity = local(binding.$Type);
      const view: OperationView = {
        name,
        kind: o.$Kind === "Function" ? "function" : "action",
        ...(o["@Core.Description"] && { description: o["@Core.Description"] }),
        parameters: rest.map((p) => {
          const optional = p["@Core.OptionalParameter"];
          const type: string = p.$Type ?? "Edm.String";
          const members = isLocal(type) ? enumMembers(type) : undefined;
          return {
            name: p.$Name,
            type,
            required: p.$Nullable !== true && optional === undefined,
            ...(members && { members }),
            ...(optional?.DefaultValue !== undefined && { defaultValue: String(optional.DefaultValue) }),
          };
        }),
        ...(o.$ReturnType && {
          returns: { type: o.$ReturnType.$Type ?? "Edm.String", collection: o.$ReturnType.$Collection === true },
        }),
      };
      operations.set(entity, [...(operations.get(entity) ?? []), view]);
    }
  }

  const entities = new Map<string, EntityView>();
  for (const [name, type] of Object.entries(schema) as [string, Json][]) {
    if (type?.$Kind !== "EntityType") continue;
    const set = setOf.get(name);
    const setAnnotations = set === undefined ? undefined : container[set];
    const header = type["@UI.HeaderInfo"];
    const label: string = header?.TypeName ?? type["@Common.Label"] ?? name;
    const alternate = type["@Core.AlternateKeys"]?.[0]?.Key?.[0]?.Name;
    const groups: FieldGroupView[] = Object.entries(type)
      .filter(([key]) => key.startsWith("@UI.FieldGroup#"))
      .map(([key, group]: [string, Json]) => ({
        qualifier: key.slice("@UI.FieldGroup#".length),
        ...(group.Label !== undefined && { label: group.Label }),
        fields: pathsOf(group.Data),
      }));
    const lineItem = type["@UI.LineItem"] === undefined ? undefined : pathsOf(type["@UI.LineItem"]);
    entities.set(name, {
      name,
      ...(set !== undefined && { set }),
      label,
      pluralLabel: header?.TypeNamePlural ?? (label === name ? (set ?? name) : label),
      properties: new Map(propertiesOf(type).map((p) => [p.name, p])),
      naturalKey: typeof alternate === "string" ? alternate : "Guid",
      ...(lineItem && { lineItem }),
      fieldGroups: groups,
      operations: operations.get(name) ?? [],
      searchable: setAnnotations?.["@Capabilities.SearchRestrictions"]?.Searchable !== false,
      nonFilterable: restricted(setAnnotations, "FilterRestrictions", "NonFilterableProperties"),
      nonSortable: restricted(setAnnotations, "SortRestrictions", "NonSortableProperties"),
    });
  }
  return { entities, sets };
}

/** the property at a path of `entity` (`SellToCustomer/Name` through the reference), with the entity that holds it */
/** the property a reference to `target` is written and shown by: its natural key, else its Guid */
export const referenceKeyOf = (model: ModelView, target: string): string =>
  model.entities.get(target)?.naturalKey ?? "Guid";

/** a reference's value (the expanded target, or none) as the text of its key, for an input */
export function referenceKeyText(model: ModelView, target: string, value: unknown): string {
  const current = value as Record<string, unknown> | null | undefined;
  return current ? String(current[referenceKeyOf(model, target)] ?? current.Guid ?? "") : "";
}

export function propertyAt(
  model: ModelView,
  entity: EntityView,
  path: string,
): { readonly property: PropertyView; readonly first: PropertyView } | undefined {
  const [top, member] = path.split("/");
  const first = entity.properties.get(top!);
  if (first === undefined || member === undefined) return first && { property: first, first };
  if (first.kind === "reference") {
    const property = model.entities.get(first.target)?.properties.get(member);
    return property && { property, first };
  }
  if (first.kind === "complex") {
    const property = first.members.find((m) => m.name === member);
    return property && { property, first };
  }
  return undefined;
}

/**
 * A list's columns: the UI.LineItem paths, or the natural key, the title and up to three more
 * properties that are stored (filterable) single values
 */
export function columnsOf(entity: EntityView): readonly string[] {
  if (entity.lineItem !== undefined && entity.lineItem.length > 0) return entity.lineItem;
  const picked = [entity.naturalKey, "Title"].filter((name, i, all) => name !== "Guid" && all.indexOf(name) === i);
  for (const p of entity.properties.values()) {
    if (picked.length >= 5) break;
    if (picked.includes(p.name) || p.name === "Guid" || entity.nonFilterable.has(p.name)) continue;
    if ((p.kind === "scalar" && !p.collection) || p.kind === "reference") picked.push(p.name);
  }
  return picked;
}

/** an object page's groups: the UI.FieldGroups, or one group of every property but collections */
export function groupsOf(entity: EntityView): readonly FieldGroupView[] {
  if (entity.fieldGroups.length > 0) return entity.fieldGroups;
  const fields = [...entity.properties.values()]
    .filter((p) => p.kind !== "collection" && p.name !== "Guid" && p.name !== "RecordReadOnly")
    .map((p) => p.name);
  return [{ qualifier: "All", fields }];
}
