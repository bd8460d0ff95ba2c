/**
 * Property tests: records generated from the field definitions (every kind, bounds, defaults,
 * nested collections) pass validateWrite and come back as the expected normalized value; the
 * output validates again to itself; and no input whatsoever makes validateWrite throw.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtInFields, entity, type Fields } from "../model/entity.js";
import {
  boolean,
  type CollectionField,
  collection,
  complex,
  date,
  datetime,
  decimal,
  duration,
  enumeration,
  guid,
  integer,
  type PersistedField,
  type ReferenceField,
  reference,
  type ScalarField,
  text,
  timeOfDay,
} from "../model/fields.js";
import { type AnyEntity, defineModel } from "../model/model.js";
import { validateWrite, type WriteIssueCode, type WriteMode } from "./index.js";

const Country = entity("Country", { naturalKey: "Code", fields: { Code: text({ required: true, maxLength: 3 }) } });
const Bin = entity("Bin", { naturalKey: "Number", fields: { Number: integer({ required: true }) } });
const Note = entity("Note", {
  naturalKey: "Guid",
  fields: { Line: reference("Line", { required: true }), Text: text({ required: true, minLength: 1, maxLength: 20 }) },
});
const Line = entity("Line", {
  naturalKey: "Guid",
  fields: {
    Order: reference("Order", { required: true }),
    Quantity: integer({ required: true, min: 1, max: 999 }),
    Price: decimal({ precision: 10, scale: 3, min: -100 }),
    Bin: reference("Bin"),
    Notes: collection(Note, { inverse: "Line" }),
  },
});
const Order = entity("Order", {
  naturalKey: "Number",
  fields: {
    Number: text({ required: true, minLength: 1, maxLength: 12 }),
    Count: integer(),
    Amount: decimal({ precision: 18, scale: 4 }),
    Rate: decimal({ precision: 5, scale: 2, min: 0, max: 100, default: 7.5 }),
    Paid: boolean({ default: false }),
    Due: date({ required: true }),
    Stamp: datetime(),
    Opens: timeOfDay(),
    LeadTime: duration(),
    External: guid(),
    Status: enumeration(["Open", "Closed", "open"], { default: "Open" }),
    Country: reference("Country"),
    Address: complex({ Street: text({ maxLength: 30 }), Country: reference("Country", { required: true }) }),
    Shipping: complex({ Express: boolean({ default: true }), Days: integer({ min: 0 }) }),
    Lines: collection(Line, { inverse: "Order" }),
  },
});
const model = defineModel([Country, Bin, Note, Line, Order]);

// ---------------------------------------------------------------- generators from definitions

/** a generated input and the value validateWrite must turn it into */
interface Pair {
  readonly input: unknown;
  readonly output: unknown;
}
const same = (value: unknown): Pair => ({ input: value, output: value });
const orNull = (arb: fc.Arbitrary<Pair>, output: unknown = null) =>
  fc.oneof({ arbitrary: arb, weight: 4 }, { arbitrary: fc.constant({ input: null, output }), weight: 1 });

const guidPair = fc.tuple(fc.uuid(), fc.boolean()).map(([g, upper]) => ({
  input: upper ? g.toUpperCase() : g,
  output: g.toLowerCase(),
}));
/** single UTF-16 units, so the generated length is the length valibot measures */
const utf16 = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const instants = fc.date({
  min: new Date("0001-01-01T00:00:00Z"),
  max: new Date("9999-12-31T23:59:59Z"),
  noInvalidDate: true,
});

/** the exact decimal text of `scaled / 10^scale`, without trailing fraction zeros */
function scaledText(scaled: bigint, scale: number): string {
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(scale + 1, "0");
  const frac = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${scaled < 0n ? "-" : ""}${digits.slice(0, digits.length - scale)}${frac ? `.${frac}` : ""}`;
}

function decimalArb(field: Extract<ScalarField, { kind: "decimal" }>, ieee754: boolean): fc.Arbitrary<Pair> {
  // a JSON number carries at most 15 significant digits exactly; strings carry any precision
  const limit = 10n ** BigInt(ieee754 ? field.precision : Math.min(field.precision, 15)) - 1n;
  const unit = 10 ** field.scale;
  const min = field.min === undefined ? -limit : BigInt(Math.ceil(field.min * unit));
  const max = field.max === undefined ? limit : BigInt(Math.floor(field.max * unit));
  return fc.tuple(fc.bigInt({ min, max }), fc.boolean(), fc.nat(2)).map(([scaled, asText, zeros]) => {
    const exact = scaledText(scaled, field.scale);
    const fitsNumber = scaled > -(10n ** 15n) && scaled < 10n ** 15n;
    if (ieee754 && (asText || !fitsNumber))
      return { input: exact + (exact.includes(".") ? "0".repeat(zeros) : ""), output: exact };
    return { input: Number(exact), output: exact };
  });
}

function scalarArb(field: ScalarField, ieee754: boolean): fc.Arbitrary<Pair> {
  switch (field.kind) {
    case "text":
      return fc.string({ unit: utf16, minLength: field.minLength ?? 0, maxLength: field.maxLength }).map(same);
    case "integer":
      return fc
        .integer({ min: Math.max(field.min ?? -(2 ** 31), -(2 ** 31)), max: field.max ?? 2 ** 31 - 1 })
        .map(same);
    case "decimal":
      return decimalArb(field, ieee754);
    case "boolean":
      return fc.boolean().map(same);
    case "date":
      return instants.map((d) => same(d.toISOString().slice(0, 10)));
    case "datetime":
      return fc
        .tuple(instants, fc.constantFrom("Z", "+02:00", "-05:30"))
        .map(([d, zone]) => same(d.toISOString().replace("Z", zone)));
    case "timeOfDay":
      return fc
        .tuple(
          fc.integer({ min: 0, max: 23 }),
          fc.integer({ min: 0, max: 59 }),
          fc.option(fc.stringMatching(/^\d{2}(\.\d{1,6})?$/)),
        )
        .filter(([, , seconds]) => seconds === null || Number(seconds) < 60)
        .map(([h, m, seconds]) =>
          same(`${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}${seconds === null ? "" : `:${seconds}`}`),
        );
    case "duration":
      return fc
        .tuple(
          fc.boolean(),
          fc.option(fc.nat(999)),
          fc.option(fc.nat(23)),
          fc.option(fc.nat(59)),
          fc.option(fc.stringMatching(/^\d{1,2}(\.\d{1,6})?$/)),
        )
        .filter(([, d, h, m, s]) => d !== null || h !== null || m !== null || s !== null)
        .map(([minus, d, h, m, s]) => {
          const time = `${h === null ? "" : `${h}H`}${m === null ? "" : `${m}M`}${s === null ? "" : `${s}S`}`;
          return same(`${minus ? "-" : ""}P${d === null ? "" : `${d}D`}${time === "" ? "" : `T${time}`}`);
        });
    case "guid":
      return guidPair;
    case "enum":
      return fc.constantFrom(...field.values).map(same);
  }
}

function referenceArb(field: ReferenceField): fc.Arbitrary<Pair> {
  const target = model.entity(field.target) as AnyEntity;
  const naturalKey = target.fields[target.naturalKey.property] as PersistedField;
  const byKey = naturalKey.kind === "integer" ? fc.integer().map(same) : fc.string({ minLength: 1 }).map(same);
  return fc.oneof(
    guidPair,
    byKey.filter((p) => !/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(String(p.input))),
  );
}

function fieldArb(field: PersistedField, mode: WriteMode, ieee754: boolean): fc.Arbitrary<Pair> {
  switch (field.kind) {
    case "collection":
      return orNull(
        fc.array(itemArb(field, ieee754), { maxLength: 3 }).map((items) => ({
          input: items.map((i) => i.input),
          output: items.map((i) => i.output),
        })),
        mode === "create" ? [] : null,
      );
    case "complex": {
      const members = objectArb(field.fields, mode, ieee754);
      return Object.values(field.fields).some((m) => m.required) ? members : orNull(members);
    }
    case "reference":
      return field.required ? referenceArb(field) : orNull(referenceArb(field));
    default:
      return field.required || field === builtInFields.Guid
        ? scalarArb(field, ieee754)
        : orNull(scalarArb(field, ieee754));
  }
}

/** the fields a client may write, minus the owner's inverse reference in items */
const writable = (def: AnyEntity, inverse?: string): Fields =>
  Object.fromEntries(Object.entries(def.fields as Fields).filter(([name, f]) => !f.readOnly && name !== inverse));

/** new lines (create, defaults apply) and lines naming a Guid (partial, no defaults) */
function itemArb(field: CollectionField, ieee754: boolean): fc.Arbitrary<Pair> {
  const fields = writable(field.target, field.inverse);
  return fc.oneof(
    objectArb(fields, "create", ieee754),
    objectArb({ ...fields, Guid: builtInFields.Guid }, "update", ieee754, ["Guid"]),
  );
}

function defaultOf(field: PersistedField): unknown {
  if (field.kind === "complex") {
    const defaults = Object.entries(field.fields).filter(([, m]) => defaultOf(m) !== undefined);
    return defaults.length === 0 ? undefined : Object.fromEntries(defaults.map(([name, m]) => [name, defaultOf(m)]));
  }
  const value = "default" in field ? field.default : undefined;
  return field.kind === "decimal" && value !== undefined ? String(value) : value;
}

function objectArb(fields: Fields, mode: WriteMode, ieee754: boolean, given: string[] = []): fc.Arbitrary<Pair> {
  const shape: Record<string, fc.Arbitrary<Pair>> = {};
  const requiredKeys = [...given];
  for (const [name, field] of Object.entries(fields)) {
    shape[name] = fieldArb(field, mode, ieee754);
    const mustGive =
      field.kind === "complex"
        ? Object.values(field.fields).some((m) => m.required)
        : field.required && defaultOf(field) === undefined;
    if (mode === "create" && mustGive) requiredKeys.push(name);
  }
  return fc.record(shape, { requiredKeys }).map((parts) => {
    const input: Record<string, unknown> = {};
    const output: Record<string, unknown> = {};
    for (const [name, part] of Object.entries(parts)) {
      input[name] = part.input;
      output[name] = part.output;
    }
    for (const [name, field] of Object.entries(fields)) {
      if (mode === "create" && !Object.hasOwn(parts, name) && defaultOf(field) !== undefined)
        output[name] = defaultOf(field);
    }
    return { input, output };
  });
}

// ---------------------------------------------------------------- properties

const codes = new Set<WriteIssueCode>([
  "InvalidBody",
  "UnknownProperty",
  "ReadOnlyProperty",
  "Required",
  "InvalidType",
  "InvalidValue",
  "TooLong",
  "TooShort",
  "OutOfRange",
  "TooPrecise",
]);

describe.each([false, true])("validateWrite with ieee754Compatible=%s", (ieee754) => {
  const options = { ieee754Compatible: ieee754 };
  const cases: [WriteMode, Fields][] = [
    ["create", { ...writable(Order), Guid: builtInFields.Guid }],
    ["update", writable(Order)],
  ];

  it.each(cases)("accepts generated %s bodies and returns them normalized", (mode, fields) => {
    fc.assert(
      fc.property(objectArb(fields, mode, ieee754), ({ input, output }) => {
        expect(validateWrite(model, Order, input, mode, options)).toEqual({ success: true, value: output });
      }),
      { numRuns: 300 },
    );
  });

  it.each(cases)("returns a %s value that validates to itself", (mode, fields) => {
    fc.assert(
      fc.property(objectArb(fields, mode, ieee754), ({ output }) => {
        // decimals come back as strings, which only IEEE754Compatible admits
        expect(validateWrite(model, Order, output, mode, { ieee754Compatible: true })).toEqual({
          success: true,
          value: output,
        });
      }),
      { numRuns: 100 },
    );
  });
});

describe("validateWrite on arbitrary input", () => {
  const wellFormed = (result: ReturnType<typeof validateWrite>) => {
    if (result.success) return;
    for (const issue of result.issues) {
      expect(codes.has(issue.code as WriteIssueCode)).toBe(true);
      expect(issue.target === undefined).toBe(issue.code === "InvalidBody");
    }
  };

  it("never throws and reports only known codes", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.jsonValue()),
        fc.constantFrom<WriteMode>("create", "update"),
        (body, mode) => {
          wellFormed(validateWrite(model, Order, body, mode));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reports a valid body with one property replaced by junk at or under that property", () => {
    const names = Object.keys(writable(Order));
    fc.assert(
      fc.property(
        objectArb(writable(Order), "create", false),
        fc.constantFrom(...names),
        fc.jsonValue(),
        ({ input }, name, junk) => {
          const result = validateWrite(model, Order, { ...(input as object), [name]: junk }, "create");
          wellFormed(result);
          if (!result.success) for (const issue of result.issues) expect(issue.target?.startsWith(name)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
