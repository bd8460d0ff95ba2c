import { type AnyEntity, isDuration, isTimeOfDay, type PersistedField } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { sampleModel } from "../domain/model.js";
import { generateSampleData } from "./generate.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

const decimalPlaces = (n: number) => {
  const text = String(n);
  if (text.includes("e")) return Number.POSITIVE_INFINITY;
  return text.split(".")[1]?.length ?? 0;
};

/**
 * Problems of one value against its field. References are checked against `seen` (Guid → entity
 * of every record yielded before), so a record pointing forward fails too.
 */
function valueProblems(path: string, field: PersistedField, value: unknown, seen: Map<string, string>): string[] {
  if (value === undefined) return [`${path} is missing`];
  if (value === null) return field.required ? [`${path} is required`] : [];
  const ok = (cond: boolean, problem: string) => (cond ? [] : [`${path} ${problem}: ${JSON.stringify(value)}`]);
  switch (field.kind) {
    case "text":
      return ok(
        typeof value === "string" && value.length <= field.maxLength && value.length >= (field.minLength ?? 0),
        "is not text of the allowed length",
      );
    case "integer":
    case "decimal": {
      if (typeof value !== "number" || !Number.isFinite(value)) return ok(false, "is not a number");
      const scale = field.kind === "decimal" ? field.scale : 0;
      const digits = field.kind === "decimal" ? field.precision - field.scale : 15;
      return [
        ...ok(decimalPlaces(value) <= scale, `has more than ${scale} decimals`),
        ...ok(Math.abs(value) < 10 ** digits, "has too many digits"),
        ...ok(value >= (field.min ?? Number.NEGATIVE_INFINITY), "is below min"),
        ...ok(value <= (field.max ?? Number.POSITIVE_INFINITY), "is above max"),
      ];
    }
    case "boolean":
      return ok(typeof value === "boolean", "is not a boolean");
    case "date":
      return ok(typeof value === "string" && isoDate.test(value) && !Number.isNaN(Date.parse(value)), "is not a date");
    case "datetime":
      return ok(typeof value === "string" && !Number.isNaN(Date.parse(value)), "is not a datetime");
    case "timeOfDay":
      return ok(typeof value === "string" && isTimeOfDay(value), "is not a time of day");
    case "duration":
      return ok(typeof value === "string" && isDuration(value), "is not a duration");
    case "guid":
      return ok(typeof value === "string" && uuid.test(value), "is not a Guid");
    case "enum":
      return ok(field.values.includes(value as string), "is not an allowed value");
    case "reference":
      return ok(typeof value === "string" && seen.get(value) === field.target, `is not an earlier ${field.target}`);
    case "complex":
      if (typeof value !== "object" || Array.isArray(value)) return ok(false, "is not an object");
      return membersProblems(path, field.fields, value as Record<string, unknown>, seen);
    case "collection":
      return ok(false, "is a collection; its items belong in their own batches");
  }
}

function membersProblems(
  path: string,
  fields: Readonly<Record<string, PersistedField>>,
  record: Record<string, unknown>,
  seen: Map<string, string>,
): string[] {
  const declared = Object.entries(fields).filter(([, f]) => f.kind !== "collection");
  return [
    ...Object.keys(record)
      .filter((key) => !(key in fields))
      .map((key) => `${path}.${key} is not a declared field`),
    ...declared.flatMap(([key, field]) => valueProblems(`${path}.${key}`, field, record[key], seen)),
  ];
}

describe("generated records", () => {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  const naturalKeys = new Map<string, Set<unknown>>();
  for (const { entity, records } of generateSampleData({
    products: 40,
    customers: 15,
    orders: 30,
    linesPerOrder: 4,
    invoices: 10,
    journals: 10,
    seed: 5,
  })) {
    const definition = sampleModel.entity(entity) as AnyEntity;
    const nk = definition.naturalKey;
    const keys = naturalKeys.get(entity) ?? new Set();
    naturalKeys.set(entity, keys);
    for (const record of records) {
      const at = `${entity}(${String(record.Guid)})`;
      problems.push(...membersProblems(at, definition.fields, record, seen));
      if (nk.unique && record[nk.property] !== null) {
        if (keys.has(record[nk.property])) problems.push(`${at}: natural key ${nk.property} repeats`);
        keys.add(record[nk.property]);
      }
      if (seen.has(record.Guid as string)) problems.push(`${at}: Guid repeats`);
      seen.set(record.Guid as string, entity);
    }
  }

  it("match their definitions, reference earlier records of the right entity, keep keys unique", () => {
    expect(problems).toEqual([]);
  });

  it("cover every stored entity of the model (a virtual one has nothing to seed)", () => {
    const stored = [...sampleModel.entities.values()].filter((e) => e.storage === undefined).map((e) => e.name);
    expect([...naturalKeys.keys()].sort()).toEqual(stored.sort());
  });
});
