/**
 * Records as resources, so that a client can pick one as it picks a file (its arguments
 * completed: mcp-completions.ts): `bizdata://record/{entitySet}/{key}` is one record by Guid or
 * natural key with its declared properties, `bizdata://records/{entitySet}/{property}/{value}` the
 * records whose property has that value (an enum member, a reference's target by natural key, a
 * text, a number, true or false), known by Guid and natural key. Read through the API as the
 * caller, like the tools; the segments are percent-encoded (RFC 6570 simple expansion).
 */
import { isGuid, type Model, type ScalarField } from "@bizdata/core";
import type { ResourceTemplateType } from "@modelcontextprotocol/server";
import { ApiFailure } from "./api-calls.js";
import { getTool } from "./read-tools.js";
import { isScalar, literal, naturalKeyOf } from "./record-keys.js";
import type { ToolContext } from "./tool-context.js";

export const RECORD_TEMPLATE = "bizdata://record/{entitySet}/{key}";
export const RECORDS_TEMPLATE = "bizdata://records/{entitySet}/{property}/{value}";

const JSON_TYPE = "application/json";

export const recordTemplates: ResourceTemplateType[] = [
  {
    uriTemplate: RECORD_TEMPLATE,
    name: "record",
    title: "A record",
    description: "One record of an entity set by its Guid or natural key, with its declared properties.",
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: RECORDS_TEMPLATE,
    name: "records",
    title: "Records with a property's value",
    description:
      "The records of an entity set whose property has a value (an enum member, a referenced record's natural key, a text, a number, true or false), by Guid and natural key.",
    mimeType: JSON_TYPE,
  },
];

/** a property a records resource can be about: a persisted scalar or a reference */
export type Narrowing =
  | { readonly kind: "scalar"; readonly field: ScalarField }
  | { readonly kind: "reference"; readonly target: string };

/** what `property` of `entity` is to a records resource, or undefined when it cannot narrow one */
export function narrowingOf(model: Model, entity: string, property: string): Narrowing | undefined {
  const field = model.entity(entity)?.fields[property];
  switch (field?.kind) {
    case undefined:
    case "collection":
    case "complex":
    case "virtual":
      return undefined;
    case "reference":
      return { kind: "reference", target: field.target };
    default:
      return { kind: "scalar", field };
  }
}

/** the properties of `entity` a records resource can be about */
export function narrowingProperties(model: Model, entity: string): string[] {
  return Object.keys(model.entity(entity)?.fields ?? {}).filter((p) => narrowingOf(model, entity, p) !== undefined);
}

/** the decoded segments of `uri` after `prefix`, when there are exactly `count` */
function segments(uri: string, prefix: string, count: number): string[] | undefined {
  if (!uri.startsWith(prefix)) return undefined;
  const parts = uri.slice(prefix.length).split("/");
  if (parts.length !== count || parts.some((p) => p === "")) return undefined;
  try {
    return parts.map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/**
 * The text of a record resource, or undefined when `uri` is not one. `entitySets` are those the
 * caller may read; a record that is not there is the API's failure (NotFound, ReferenceAmbiguous).
 */
export async function readRecordResource(
  ctx: ToolContext,
  entitySets: ReadonlySet<string>,
  uri: string,
): Promise<string | undefined> {
  const one = segments(uri, "bizdata://record/", 2);
  if (one !== undefined) {
    const [entitySet, key] = one as [string, string];
    if (!entitySets.has(entitySet)) return undefined;
    const result = await getTool(ctx, entitySet, { key, select: "*" });
    return JSON.stringify((result.structuredContent as { value: unknown }).value);
  }
  const some = segments(uri, "bizdata://records/", 3);
  if (some === undefined) return undefined;
  const [entitySet, property, value] = some as [string, string, string];
  if (!entitySets.has(entitySet)) return undefined;
  const narrowing = narrowingOf(ctx.model, entitySet, property);
  if (narrowing === undefined) return undefined;
  const key = naturalKeyOf(ctx.model, entitySet);
  const search = new URLSearchParams({
    ...equalTo(ctx.model, entitySet, property, narrowing, value),
    $select: key === "Guid" ? "Guid" : `Guid,${key}`,
    $orderby: key,
    $top: String(ctx.rowLimit + 1),
  });
  const rows = ((await ctx.api.send("GET", ctx.api.path(entitySet, search))).body as { value: unknown[] }).value;
  const more = rows.length > ctx.rowLimit;
  return JSON.stringify({ value: rows.slice(0, ctx.rowLimit), ...(more && { more: true }) });
}

/** the filter that `property` equals `value` (its value a parameter alias, so it never changes the filter's meaning) */
function equalTo(model: Model, entity: string, property: string, narrowing: Narrowing, value: string) {
  if (narrowing.kind === "scalar") {
    return { $filter: `${property} eq @value`, "@value": literal(entity, property, narrowing.field, value) };
  }
  // a reference by Guid, or by its target's natural key (spec 4.3: a Guid-shaped string is a Guid first)
  const targetKey = naturalKeyOf(model, narrowing.target);
  const field = model.entity(narrowing.target)?.fields[targetKey];
  if (isGuid(value) || targetKey === "Guid" || field === undefined || !isScalar(field)) {
    if (!isGuid(value))
      throw ApiFailure.named("InvalidKey", `"${value}" is not a Guid of a ${narrowing.target}.`, "value");
    return { $filter: `${property}/Guid eq @value`, "@value": value };
  }
  return {
    $filter: `${property}/${targetKey} eq @value`,
    "@value": literal(narrowing.target, targetKey, field, value),
  };
}
