/**
 * A record named by its Guid or its natural key (spec 4.3: a string in Guid shape is a Guid
 * first). A natural key is looked up with a query through the API, its value a parameter alias
 * (`$filter=SKU eq @key&@key='…'`), so it never changes the filter's meaning.
 */
import { isGuid, type Model, odataString, type ScalarField } from "@bizdata/core";
import { type ApiAnswer, ApiFailure } from "./api-calls.js";

const NUMBER = /^-?\d+(\.\d+)?$/;

/** the natural-key property of an entity (`Guid` when it has none of its own) */
export const naturalKeyOf = (model: Model, entity: string): string =>
  model.entity(entity)?.naturalKey.property ?? "Guid";

const invalidKey = (message: string) => ApiFailure.named("InvalidKey", message, "key");

/** the OData literal of a value typed by its field (an enum's is its member as a string) */
export function literal(entity: string, property: string, field: ScalarField, value: string): string {
  switch (field.kind) {
    case "integer":
    case "decimal":
      if (!NUMBER.test(value)) throw invalidKey(`${entity}.${property} is a number; "${value}" is not one.`);
      return value;
    case "boolean":
    case "date":
    case "datetime":
    case "timeOfDay":
    case "guid":
      return value;
    case "duration":
      return `duration${odataString(value)}`;
    case "text":
    case "enum":
      return odataString(value);
  }
}

/** the query options that find records by natural key (at most two: one, or proof of ambiguity) */
export function naturalKeySearch(model: Model, entity: string, value: string): URLSearchParams {
  const property = naturalKeyOf(model, entity);
  const field = model.entity(entity)?.fields[property];
  if (property === "Guid" || field === undefined || !isScalar(field)) {
    throw invalidKey(`"${value}" is not a Guid, and ${entity} records are known by their Guid only.`);
  }
  return new URLSearchParams({
    $filter: `${property} eq @key`,
    "@key": literal(entity, property, field, value),
    $top: "2",
  });
}

export const isScalar = (field: { kind: string }): field is ScalarField =>
  field.kind !== "reference" && field.kind !== "collection" && field.kind !== "complex" && field.kind !== "virtual";

/** the one record a natural-key query found; none or several is a failure naming the key */
export function onlyRecord(model: Model, entity: string, value: string, answer: ApiAnswer): Record<string, unknown> {
  const rows = (answer.body as { value: Record<string, unknown>[] }).value;
  const property = naturalKeyOf(model, entity);
  if (rows.length === 0) {
    throw ApiFailure.named("NotFound", `No ${entity} has ${property} "${value}".`, "key");
  }
  if (rows.length > 1) {
    throw ApiFailure.named(
      "KeyAmbiguous",
      `Several ${entity} records have ${property} "${value}"; give the Guid.`,
      "key",
    );
  }
  return rows[0]!;
}

/** the Guid of the record `key` names, found through `read` (the saved data or a workflow's staged state) */
export async function guidOf(
  model: Model,
  entity: string,
  key: string,
  path: (resource: string, search: URLSearchParams) => string,
  read: (path: string) => Promise<ApiAnswer>,
): Promise<string> {
  if (isGuid(key)) return key.toLowerCase();
  const search = naturalKeySearch(model, entity, key);
  search.set("$select", "Guid");
  return onlyRecord(model, entity, key, await read(path(entity, search))).Guid as string;
}
