/**
 * Converts and checks a method call's arguments by their declared types (spec 4.8 parameter
 * rules): from the query string (text, OData literal forms accepted: `'quoted'` strings) or from
 * a JSON body. A missing required parameter is `400 MissingParameter`; a value of the wrong
 * type `400 InvalidParameter`; an argument the method does not declare `400 UnknownParameter`.
 */
import { type BadRequestCode, badRequest, type ErrorDetail, ServiceError } from "../errors.js";
import type { ScalarField } from "../model/fields.js";
import { isDuration, isTimeOfDay, odataStringValue } from "../validation/formats.js";
import { isGuid } from "../write/natural-keys.js";
import type { MethodParams } from "./method.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** `'O''Brien'` → `O'Brien`; unquoted text as it is */
const unquote = (text: string) => (/^'.*'$/s.test(text) ? odataStringValue(text) : text);

function convert(
  field: ScalarField,
  raw: unknown,
  fromText: boolean,
): { ok: true; value: unknown } | { ok: false; expected: string } {
  const text = typeof raw === "string" ? (fromText ? unquote(raw) : raw) : undefined;
  switch (field.kind) {
    case "text":
      return text !== undefined && text.length <= field.maxLength
        ? { ok: true, value: text }
        : { ok: false, expected: "text" };
    case "enum":
      return text !== undefined && field.values.includes(text)
        ? { ok: true, value: text }
        : { ok: false, expected: `one of ${field.values.join(", ")}` };
    case "integer": {
      const n = typeof raw === "number" ? raw : text !== undefined && /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      return Number.isSafeInteger(n) &&
        (field.min === undefined || n >= field.min) &&
        (field.max === undefined || n <= field.max)
        ? { ok: true, value: n }
        : { ok: false, expected: "an integer" + (field.min !== undefined ? ` ≥ ${field.min}` : "") };
    }
    case "decimal": {
      const n = typeof raw === "number" ? raw : text !== undefined && NUMBER.test(text) ? Number(text) : Number.NaN;
      return Number.isFinite(n) &&
        (field.min === undefined || n >= field.min) &&
        (field.max === undefined || n <= field.max)
        ? { ok: true, value: n }
        : { ok: false, expected: "a decimal number" };
    }
    case "boolean": {
      const b = typeof raw === "boolean" ? raw : text === "true" ? true : text === "false" ? false : undefined;
      return b === undefined ? { ok: false, expected: "true or false" } : { ok: true, value: b };
    }
    case "guid":
      return isGuid(text) ? { ok: true, value: text.toLowerCase() } : { ok: false, expected: "a Guid" };
    case "date":
      return text !== undefined && DATE.test(text)
        ? { ok: true, value: text }
        : { ok: false, expected: "a date (YYYY-MM-DD)" };
    case "datetime":
      return text !== undefined && DATETIME.test(text)
        ? { ok: true, value: text }
        : { ok: false, expected: "a date-time with offset" };
    case "timeOfDay":
      return text !== undefined && isTimeOfDay(text)
        ? { ok: true, value: text }
        : { ok: false, expected: "a time of day (hh:mm:ss)" };
    case "duration": {
      // the URL form `duration'P1D'` too
      const value = fromText && text !== undefined ? (/^duration'(.*)'$/is.exec(text)?.[1] ?? text) : text;
      return value !== undefined && isDuration(value)
        ? { ok: true, value }
        : { ok: false, expected: "a duration (ISO 8601, e.g. P1DT2H)" };
    }
  }
}

export function methodArguments(
  method: string,
  params: MethodParams,
  given: Readonly<Record<string, unknown>>,
  fromText: boolean,
): Record<string, unknown> {
  // each a whole error when it is the only one
  const problems: (ErrorDetail & { readonly code: BadRequestCode })[] = [];
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(params, name)) {
      problems.push({ code: "UnknownParameter", message: `${method} has no parameter "${name}".`, target: name });
    }
  }
  const args: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(params)) {
    const raw = Object.hasOwn(given, name) ? given[name] : undefined;
    if (raw === undefined || raw === null || (fromText && raw === "null")) {
      const fallback = "default" in field ? field.default : undefined;
      if (fallback !== undefined) args[name] = fallback;
      else if (field.required) {
        throw badRequest("MissingParameter", `${method} needs the parameter "${name}" (${field.kind}).`, name);
      } else args[name] = null;
      continue;
    }
    const converted = convert(field, raw, fromText);
    if (converted.ok) args[name] = converted.value;
    else
      problems.push({
        code: "InvalidParameter",
        message: `Parameter "${name}" of ${method} must be ${converted.expected}.`,
        target: name,
      });
  }
  if (problems.length === 1) throw badRequest(problems[0]!.code, problems[0]!.message, problems[0]!.target);
  if (problems.length > 1)
    throw new ServiceError("InvalidParameter", `The arguments of ${method} are not valid.`, undefined, problems);
  return args;
}
