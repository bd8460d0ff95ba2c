import { boolean, date, decimal, entity, method, type RecordOf, text } from "@bizdata/core";

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
  // implemented in sample-methods.ts
  methods: {
    Post: method({
      description: "Post the journal; it cannot be changed afterwards",
      type: "modify",
      saveOnCompletion: true,
    }),
  },
});
export type JournalRecord = RecordOf<typeof Journal>;
