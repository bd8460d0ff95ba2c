/**
 * How the MCP tools' input schemas describe the model (@bizdata/odata's EdmJsonSchemas): each
 * schema stands alone, with every type written out, since a tool's input cannot refer to a
 * document; objects refuse what they do not declare, so an agent guesses no names; numbers with
 * only the keywords every validator checks alike; the notes say how to write a reference and an
 * owned collection, the way the tool descriptions do.
 */
import type { Model } from "@bizdata/core";
import type { EdmJsonSchemaStyle } from "@bizdata/odata";

export function toolSchemaStyle(model: Model): EdmJsonSchemaStyle {
  return {
    types: "inline",
    numbers: "ranges",
    closed: true,
    propertyDefaults: false,
    parameterDefaults: "keyword",
    notes: {
      // the natural key as the model declares it, unique or not: `$metadata`'s alternate keys are
      // only the unique ones, and a reference by a non-unique key works while one record holds it
      reference: (target) => {
        const key = model.entity(target)?.naturalKey.property ?? "Guid";
        return `A ${target}: its Guid${key === "Guid" ? "" : ` or its ${key}`}.`;
      },
      collection: (target, shape) =>
        `The ${target} items, written inline${shape === "update" ? ": the whole list (an item with its Guid is changed, one without is added, one left out is removed)" : ""}.`,
    },
  };
}
