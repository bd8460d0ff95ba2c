import { decimal, entity, type RecordOf, reference, text } from "@bizdata/core";

export const Customer = entity("Customer", {
  naturalKey: "Id",
  label: "Customer",
  pluralLabel: "Customers",
  fields: {
    Id: text({ required: true, maxLength: 32, label: "Customer number" }),
    Name: text({ searchable: true, label: "Name" }),
    PrimaryContact: reference("Contact", { label: "Primary contact" }),
    CreditLimit: decimal({ precision: 18, scale: 4, min: 0, label: "Credit limit" }),
  },
  lineItem: ["Id", "Name", "PrimaryContact/Email", "CreditLimit"],
  title: (c) => c.Name ?? c.Id,
});
export type CustomerRecord = RecordOf<typeof Customer>;
