import { boolean, date, decimal, entity, type RecordOf, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const journalFields = {
  DocNumber: text({ required: true, maxLength: 32 }),
  Description: text(),
  PostingDate: date(),
  /** becomes true when the `Post` method completes (spec 4.8), never written by a client */
  IsPosted: boolean({ readOnly: true, default: false }),
  Amount: decimal({ precision: 18, scale: 4 }),
};

export const Journal = entity("Journal", {
  naturalKey: "DocNumber",
  fields: journalFields,
  title: (j) => j.DocNumber,
});
export type JournalRecord = RecordOf<typeof Journal>;
