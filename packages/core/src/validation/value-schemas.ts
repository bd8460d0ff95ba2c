/**
 * valibot schemas for single property values, derived from field definitions. Messages are
 * predicates ("must be …") because one schema serves every path the field appears under
 * (`Details[0].Quantity`, `Details[7].Quantity`); the caller puts the path in front.
 */
import * as v from "valibot";
import type { DecimalField, IntegerField, PersistedField, ScalarField, TextField } from "../model/fields.js";
import type { AnyEntity } from "../model/model.js";
import { compareDecimal, type Decimal, decimalText, formatDecimal, parseDecimal } from "./decimal.js";
import { guidPattern, isCalendarDate, isDateTimeWithOffset, isDuration, isTimeOfDay } from "./formats.js";
import { coded } from "./issue-codes.js";

export type ValueSchema = v.GenericSchema<unknown, unknown>;

/** integer fields are stored as PostgreSQL `integer` (int4) */
const int4 = { min: -2147483648, max: 2147483647 } as const;

/**
 * The schema for one scalar value (not null: nullability is decided by the caller, which knows
 * whether the field is required). `ieee754` admits decimal strings (OData `IEEE754Compatible`).
 */
export function scalarSchema(field: ScalarField, ieee754: boolean): ValueSchema {
  switch (field.kind) {
    case "text":
      return textSchema(field);
    case "integer":
      return integerSchema(field);
    case "decimal":
      return decimalSchema(field, ieee754);
    case "boolean":
      return v.boolean("must be true or false");
    case "date":
      return formatted("must be a date in the form YYYY-MM-DD", isCalendarDate);
    case "datetime":
      return formatted(
        "must be a date and time in ISO 8601 form with a time zone, such as 2024-05-01T09:30:00Z",
        isDateTimeWithOffset,
      );
    case "timeOfDay":
      return formatted("must be a time of day in the form hh:mm:ss, such as 13:20:00 or 13:20:00.5", isTimeOfDay);
    case "duration":
      return formatted(
        "must be a duration in ISO 8601 form in days, hours, minutes and seconds, such as P1DT2H30M or PT0.5S",
        isDuration,
      );
    case "guid":
      return guidSchema;
    case "enum":
      return v.picklist(
        field.values,
        `must be one of ${field.values.map((x) => `"${x}"`).join(", ")} (case sensitive)`,
      );
  }
}

const guidMessage = "must be a GUID (8-4-4-4-12 hexadecimal digits)";
/** lowercased so that the same GUID in any case is one key in storage */
const guidSchema = v.pipe(v.string(guidMessage), v.regex(guidPattern, guidMessage), v.toLowerCase());

function formatted(message: string, isValid: (text: string) => boolean): ValueSchema {
  return v.pipe(v.string(message), v.check(isValid, message));
}

function textSchema(field: TextField): ValueSchema {
  return v.pipe(
    v.string("must be a string"),
    v.maxLength(field.maxLength, `must be at most ${field.maxLength} characters long`),
    v.minLength(field.minLength ?? 0, `must be at least ${field.minLength ?? 0} characters long`),
  );
}

function integerSchema(field: IntegerField): ValueSchema {
  const min = Math.max(int4.min, field.min ?? int4.min);
  const max = Math.min(int4.max, field.max ?? int4.max);
  return v.pipe(
    v.number("must be an integer"),
    v.integer("must be an integer"),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
}

function decimalSchema(field: DecimalField, ieee754: boolean): ValueSchema {
  const message = ieee754 ? 'must be a number or a decimal string such as "-12.50"' : "must be a number";
  const number = v.pipe(v.number(message), v.finite(message));
  const input = ieee754 ? v.union([number, v.pipe(v.string(message), v.regex(decimalText, message))], message) : number;
  const bound = (limit: number | undefined) => (limit === undefined ? undefined : parseDecimal(String(limit)));
  const min = bound(field.min);
  const max = bound(field.max);
  const integerDigits = field.precision - field.scale;
  return v.pipe(
    input,
    // both inputs are valid decimal text by now (a finite number's `String` always is)
    v.transform((value) => parseDecimal(String(value)) as Decimal),
    coded(
      "TooPrecise",
      (d: Decimal) => d.frac.length <= field.scale,
      `must have at most ${field.scale} decimal places`,
    ),
    coded(
      "OutOfRange",
      (d: Decimal) => d.int.length <= integerDigits,
      `must have at most ${integerDigits} digits before the decimal point`,
    ),
    coded(
      "OutOfRange",
      (d: Decimal) => min === undefined || compareDecimal(d, min) >= 0,
      `must be at least ${field.min}`,
    ),
    coded(
      "OutOfRange",
      (d: Decimal) => max === undefined || compareDecimal(d, max) <= 0,
      `must be at most ${field.max}`,
    ),
    // a string of the exact decimal, so storage never sees float noise
    v.transform(formatDecimal),
  );
}

/**
 * A reference is a GUID or a natural-key value of the target (spec 4.3); which record it names is
 * resolved later, so any non-empty string passes here. A number or boolean passes only when the
 * target's natural key has that type.
 */
export function referenceSchema(target: AnyEntity): ValueSchema {
  const key = target.naturalKey.property;
  const message =
    key === "Guid" ? `must be the GUID of a ${target.name}` : `must be a GUID or the ${key} of a ${target.name}`;
  const text = v.pipe(
    v.string(message),
    v.check((s: string) => s.length > 0, message),
    // a GUID-shaped string is a GUID first (spec 4.3), and GUIDs are kept lowercase
    v.transform((s: string) => (guidPattern.test(s) ? s.toLowerCase() : s)),
  );
  switch ((target.fields[key] as PersistedField).kind) {
    case "integer":
      return v.union([text, v.pipe(v.number(message), v.safeInteger(message))], message);
    case "decimal":
      return v.union([text, v.pipe(v.number(message), v.finite(message))], message);
    case "boolean":
      return v.union([text, v.boolean(message)], message);
    default:
      return text;
  }
}
