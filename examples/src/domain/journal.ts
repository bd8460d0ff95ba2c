import { boolean, date, decimal, entity, type RecordOf, text } from "@bizdata/core";
import { Post } from "./sample-methods.js";

export const Journal = entity("Journal", {
  naturalKey: "DocNumber",
  fields: {
    DocNumber: text({ required: true, maxLength: 32 }),
    Description: text(),
    PostingDate: date(),
    /** becomes true when the `Post` method completes (spec 4.8), never written by a client */
    IsPosted: boolean({ readOnly: true, default: false }),
    Amount: decimal({ precision: 18, scale: 4 }),
  },
  title: (j) => j.DocNumber,
  methods: { Post },
});
export type JournalRecord = RecordOf<typeof Journal>;
