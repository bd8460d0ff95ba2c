/**
 * The OData query options a page needs for the paths it shows: `$select` of the properties,
 * `$expand` of the references (the target's title and natural key, or the member a path names)
 * and of owned collections with their own columns; and the `$filter` a column's filter text means.
 */
import { quoted } from "./http.js";
import { type EntityView, type ModelView, type PropertyView, propertyAt, referenceKeyOf } from "./model-view.js";

/** what a shown reference needs of its target: its title and natural key */
const referenceSelect = (model: ModelView, target: string) => {
  const nk = referenceKeyOf(model, target);
  return nk === "Guid" ? ["Title"] : ["Title", nk];
};

/** `$select` and `$expand` for `paths` of `entity` (nested expands as `name(<options>)`) */
export function projection(
  model: ModelView,
  entity: EntityView,
  paths: readonly string[],
  collections: readonly string[] = [],
): { select: string; expand: string } {
  const select = new Set<string>();
  const expand = new Map<string, Set<string>>();
  const nested: string[] = [];
  for (const path of paths) {
    const found = propertyAt(model, entity, path);
    if (found === undefined) continue;
    const { first } = found;
    const [, member] = path.split("/");
    if (first.kind === "reference") {
      const wanted = expand.get(first.name) ?? new Set<string>();
      for (const p of member === undefined ? referenceSelect(model, first.target) : [member]) wanted.add(p);
      expand.set(first.name, wanted);
    } else if (first.kind !== "collection") select.add(first.name);
  }
  for (const name of collections) {
    const field = entity.properties.get(name);
    if (field?.kind !== "collection") continue;
    const item = model.entities.get(field.target);
    if (item === undefined) continue;
    const columns = itemColumns(item, field.partner);
    const inner = projection(model, item, columns);
    // lines in the order of their first column (a line number, say) when it is a stored single value
    const by = item.properties.get(columns[0] ?? "");
    const sorted = by?.kind === "scalar" && !by.collection && !item.nonSortable.has(by.name);
    const options = [`$select=${inner.select}`, ...(inner.expand ? [`$expand=${inner.expand}`] : [])];
    nested.push(`${name}(${[...options, ...(sorted ? [`$orderby=${by.name}`] : [])].join(";")})`);
  }
  return {
    select: [...select].join(","),
    expand: [...[...expand].map(([nav, props]) => `${nav}($select=${[...props].join(",")})`), ...nested].join(","),
  };
}

/** an owned item's columns: its line item or its single values, without the reference back to the owner */
export function itemColumns(item: EntityView, partner: string | undefined): string[] {
  if (item.lineItem !== undefined && item.lineItem.length > 0) return [...item.lineItem];
  return [...item.properties.values()]
    .filter((p) => p.name !== partner && p.name !== "Guid" && p.name !== "RecordReadOnly")
    .filter((p) => (p.kind === "scalar" && !p.collection) || p.kind === "reference")
    .map((p) => p.name);
}

/** the value at `path` of a record (`SellToCustomer/Name` inside the expanded reference) */
export function valueAt(record: Record<string, any> | null | undefined, path: string): unknown {
  let value: any = record;
  for (const step of path.split("/")) value = value?.[step];
  return value;
}

/** the path a column sorts by: a reference by its target's title */
export const sortPath = (property: PropertyView, path: string) =>
  property.kind === "reference" && !path.includes("/") ? `${path}/Title` : path;

const NUMBERS = new Set(["Edm.Int16", "Edm.Int32", "Edm.Int64", "Edm.Decimal", "Edm.Double", "Edm.Byte", "Edm.Single"]);
export const isNumeric = (type: string) => NUMBERS.has(type);

/** the `$filter` for a column's filter text, or undefined when the text cannot mean anything for its type */
export function columnFilter(property: PropertyView, path: string, text: string): string | undefined {
  const value = text.trim();
  if (value === "") return undefined;
  if (property.kind === "reference") return `contains(${path.includes("/") ? path : `${path}/Title`},${quoted(value)})`;
  if (property.kind !== "scalar") return undefined;
  if (property.members !== undefined) return `${path} eq ${quoted(value)}`;
  switch (property.type) {
    case "Edm.String":
      return `contains(${path},${quoted(value)})`;
    case "Edm.Boolean":
      return value === "true" || value === "false" ? `${path} eq ${value}` : undefined;
    case "Edm.Date":
      return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${path} eq ${value}` : undefined;
    case "Edm.Guid":
      return /^[0-9a-f-]{36}$/i.test(value) ? `${path} eq ${value}` : undefined;
    default:
      return isNumeric(property.type) && Number.isFinite(Number(value)) ? `${path} eq ${Number(value)}` : undefined;
  }
}

/** whether a column can be filtered: a stored value of a type a text can stand for */
export function filterable(entity: EntityView, property: PropertyView, path: string): boolean {
  if (entity.nonFilterable.has(path.split("/")[0]!)) return false;
  if (property.kind === "reference") return true;
  return property.kind === "scalar" && !property.collection && property.type !== "Edm.Duration";
}
