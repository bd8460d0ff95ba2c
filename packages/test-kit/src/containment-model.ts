/**
 * A model that nests owned collections (Order → Lines → Notes) and reaches an owner through a
 * reference (Customer.LastOrder), for the tests of items addressed under their owners (OData
 * containment). Each suite names its entities with its own prefix: suites share a database.
 */
import { collection, defineModel, entity, integer, method, reference, text } from "@bizdata/core";

/** the Read method bound to a line, `Describe` */
export const Describe = method({
  description: "Says what the line is",
  type: "read",
  returns: { kind: "scalar", type: text() },
});

export function containmentModel(prefix: string, options: { readonly namespace?: string } = {}) {
  const Note = entity(`${prefix}Note`, {
    naturalKey: "Guid",
    fields: { Line: reference(`${prefix}Line`, { required: true }), Text: text() },
  });
  const Line = entity(`${prefix}Line`, {
    naturalKey: "Guid",
    fields: {
      Order: reference(`${prefix}Order`, { required: true }),
      Product: reference(`${prefix}Product`),
      Quantity: integer(),
      Notes: collection(Note, { inverse: "Line" }),
    },
    methods: { Describe },
  });
  const Product = entity(`${prefix}Product`, { naturalKey: "SKU", fields: { SKU: text({ required: true }) } });
  const Order = entity(`${prefix}Order`, {
    naturalKey: "Number",
    fields: {
      Number: text({ required: true }),
      Customer: reference(`${prefix}Customer`),
      Lines: collection(Line, { inverse: "Order" }),
    },
  });
  const Customer = entity(`${prefix}Customer`, {
    naturalKey: "Code",
    fields: { Code: text({ required: true }), LastOrder: reference(`${prefix}Order`) },
  });
  return defineModel([Note, Line, Product, Order, Customer], options);
}
