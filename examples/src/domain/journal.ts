import { boolean, date, decimal, entity, method, type RecordOf, text } from "@bizdata/core";

export const Journal = entity("Journal", {
  naturalKey: "DocNumber",
  label: "Journal",
  pluralLabel: "Journals",
  fields: {
    DocNumber: text({ required: true, maxLength: 32, label: "Journal number" }),
    Description: text({ label: "Description" }),
    PostingDate: date({ label: "Posting date" }),
    /** becomes true when the `Post` method completes (spec 4.8), never written by a client */
    IsPosted: boolean({ readOnly: true, default: false, label: "Posted" }),
    Amount: decimal({ precision: 18, scale: 4, label: "Amount" }),
  },
  lineItem: ["DocNumber", "Description", "PostingDate", "Amount", "IsPosted"],
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
