import { entity, type RecordOf, text } from "@bizdata/core";

/** A country, referenced from addresses by its ISO 3166-1 alpha-2 code. */
export const Country = entity("Country", {
  naturalKey: "Code",
  fields: {
    Code: text({ required: true, minLength: 2, maxLength: 2 }),
    Name: text({ maxLength: 100 }),
  },
  title: (c) => c.Name ?? c.Code,
});
export type CountryRecord = RecordOf<typeof Country>;
