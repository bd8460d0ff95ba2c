/**
 * A scalar field as an Edm type with its facets (CSDL 4.01 §7.2), the same mapping for entity
 * properties, complex members, virtual properties, method parameters and return values.
 */
import type { ScalarField } from "@bizdata/core";
import type { EdmTypeRef } from "./edm.js";
import type { SchemaNames } from "./schema-names.js";

type ScalarType = Pick<EdmTypeRef, "type" | "maxLength" | "precision" | "scale">;

/**
 * `enumNames` are the candidate names of the enum type an enum field becomes (its owner and
 * property, e.g. `SalesOrderStatus`).
 */
export function scalarType(field: ScalarField, names: SchemaNames, enumNames: readonly string[]): ScalarType {
  switch (field.kind) {
    case "text":
      return { type: "Edm.String", maxLength: field.maxLength };
    case "integer":
      return { type: "Edm.Int32" }; // stored as int4
    case "decimal":
      return { type: "Edm.Decimal", precision: field.precision, scale: field.scale };
    case "boolean":
      return { type: "Edm.Boolean" };
    case "date":
      return { type: "Edm.Date" };
    case "datetime":
      // timestamptz keeps microseconds, and reads write all six digits
      return { type: "Edm.DateTimeOffset", precision: 6 };
    case "timeOfDay":
      // `time` keeps microseconds
      return { type: "Edm.TimeOfDay", precision: 6 };
    case "duration":
      // `interval` keeps microseconds
      return { type: "Edm.Duration", precision: 6 };
    case "guid":
      return { type: "Edm.Guid" };
    case "enum": {
      const type = names.enumType(field, ...enumNames);
      return type === undefined
        ? { type: "Edm.String", maxLength: Math.max(1, ...field.values.map((v) => v.length)) }
        : { type };
    }
  }
}

export const scalarTypeRef = (
  field: ScalarField,
  nullable: boolean,
  names: SchemaNames,
  enumNames: readonly string[],
): EdmTypeRef => ({ ...scalarType(field, names, enumNames), collection: false, nullable });

/** a field's declared default, as the literal CSDL writes */
export const defaultOf = (field: ScalarField): string | number | boolean | undefined =>
  "default" in field ? field.default : undefined;
