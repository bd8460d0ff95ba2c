import { complex, entity, type RecordOf, reference, text, virtual } from "@bizdata/core";

/** "First Last", without stray spaces when either part is missing. */
const fullName = (c: { FirstName: string | null; LastName: string | null }) =>
  `${c.FirstName ?? ""} ${c.LastName ?? ""}`.trim();

export const Contact = entity("Contact", {
  naturalKey: "Email",
  fields: {
    Email: text({ maxLength: 254 }),
    FirstName: text({ maxLength: 100, searchable: true }),
    LastName: text({ maxLength: 100, searchable: true }),
    MailingAddress: complex({
      Street: text(),
      City: text({ maxLength: 100 }),
      State: text({ maxLength: 32 }),
      PostalCode: text({ maxLength: 16 }),
      Country: reference("Country"),
    }),
  },
  virtuals: {
    FullName: virtual(text(), { dependsOn: ["FirstName", "LastName"], compute: fullName }),
  },
  title: (c) => fullName(c) || (c.Email ?? ""),
  // customers by state: PrimaryContact/MailingAddress/State in the sample queries
  indexes: ["MailingAddress/State", "LastName"],
});
export type ContactRecord = RecordOf<typeof Contact>;
