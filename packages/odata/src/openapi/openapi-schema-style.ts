/**
 * How the OpenAPI document's schemas describe the model (json-schema/edm-json-schema.ts): each
 * model type once, as a component the paths refer to; numbers in OpenAPI's own formats; a
 * parameter's default in the sentence beside it, as a query parameter has it.
 */
import type { EdmJsonSchemaStyle } from "../json-schema/edm-json-schema.js";

export const OPENAPI_SCHEMA_STYLE: EdmJsonSchemaStyle = {
  types: "components",
  numbers: "formats",
  // an unknown property reaches the service, whose UnknownProperty error names it and its near miss
  closed: false,
  propertyDefaults: true,
  parameterDefaults: "description",
  notes: {
    reference: (target, keys) => `The Guid${keys.length === 0 ? "" : ` or the ${keys.join(", ")}`} of a ${target}.`,
    alternateKeys: (keys) =>
      `Natural key: ${keys.join(", ")} (unique, so a reference may give it instead of the Guid).`,
  },
};
