import { boolean, collection, date, decimal, entity, method, type RecordOf, reference, text } from "@bizdata/core";

/** A line of a sales invoice, known by Guid like order lines. */
export const SalesInvoiceDetail = entity("SalesInvoiceDetail", {
  naturalKey: "Guid",
  fields: {
    SalesInvoice: reference("SalesInvoice", { required: true }),
    Product: reference("Product", { required: true }),
    Description: text(),
    Quantity: decimal({ precision: 18, scale: 4, required: true }),
    UnitPrice: decimal({ precision: 18, scale: 4 }),
  },
});
export type SalesInvoiceDetailRecord = RecordOf<typeof SalesInvoiceDetail>;

export const SalesInvoice = entity("SalesInvoice", {
  naturalKey: "DocNumber",
  fields: {
    DocNumber: text({ required: true, maxLength: 32 }),
    InvoiceDate: date(),
    /** set by posting the invoice, never written by a client */
    IsPosted: boolean({ readOnly: true, default: false }),
    Customer: reference("Customer"),
    Details: collection(SalesInvoiceDetail, { inverse: "SalesInvoice" }),
  },
  title: (i) => i.DocNumber,
  // implemented in sample-methods.ts
  methods: {
    UpdatePrices: method({
      description: "Reprice the invoice's lines from the current product prices",
      type: "modify",
      params: { roundToCents: boolean({ default: false }) },
    }),
  },
});
export type SalesInvoiceRecord = RecordOf<typeof SalesInvoice>;
