import { entity, type RecordOf, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const countryFields = {
  Code: text({ required: true, minLength: 2, maxLength: 2 }),
  Name: text({ maxLength: 100 }),
};

/** A country, referenced from addresses by its ISO 3166-1 alpha-2 code. */
export const Country = entity("Country", {
  naturalKey: "Code",
  fields: countryFields,
  title: (c) => c.Name ?? c.Code,
});
export type CountryRecord = RecordOf<typeof Country>;
