import { decimal, entity, type RecordOf, reference, text } from "@bizdata/core";

export const Customer = entity("Customer", {
  naturalKey: "Id",
  fields: {
    Id: text({ required: true, maxLength: 32 }),
    Name: text({ searchable: true }),
    PrimaryContact: reference("Contact"),
    CreditLimit: decimal({ precision: 18, scale: 4, min: 0 }),
  },
  title: (c) => c.Name ?? c.Id,
});
export type CustomerRecord = RecordOf<typeof Customer>;
