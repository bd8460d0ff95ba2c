import { decimal, entity, type RecordOf, reference, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const customerFields = {
  Id: text({ required: true, maxLength: 32 }),
  Name: text(),
  PrimaryContact: reference("Contact"),
  CreditLimit: decimal({ precision: 18, scale: 4, min: 0 }),
};

export const Customer = entity("Customer", {
  naturalKey: "Id",
  fields: customerFields,
  title: (c) => c.Name ?? c.Id,
});
export type CustomerRecord = RecordOf<typeof Customer>;
