/**
 * JSON Schemas of the OData wire forms of Edm.TimeOfDay (`13:20:00`, `13:20:00.5`) and
 * Edm.Duration (`P1DT2H`, `-PT0.5S`), shared by the OpenAPI document and the MCP tools. Patterns,
 * not `format`: JSON Schema's `time` demands a zone offset and its `duration` no sign, and OData's
 * forms have neither the one nor always lack the other.
 */
export const TIME_OF_DAY_SCHEMA = {
  type: "string",
  pattern: "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,12})?)?$",
  examples: ["13:20:00"],
} as const;

export const DURATION_SCHEMA = {
  type: "string",
  pattern: "^-?P([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+(\\.[0-9]+)?S)?)?$",
  examples: ["P1DT2H"],
} as const;
