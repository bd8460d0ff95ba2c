import { boolean, collection, date, decimal, entity, type RecordOf, reference, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const detailFields = {
  SalesInvoice: reference("SalesInvoice", { required: true }),
  Product: reference("Product", { required: true }),
  Description: text(),
  Quantity: decimal({ precision: 18, scale: 4, required: true }),
  UnitPrice: decimal({ precision: 18, scale: 4 }),
};

/** A line of a sales invoice, known by Guid like order lines. */
export const SalesInvoiceDetail = entity("SalesInvoiceDetail", { naturalKey: "Guid", fields: detailFields });
export type SalesInvoiceDetailRecord = RecordOf<typeof SalesInvoiceDetail>;

const invoiceFields = {
  DocNumber: text({ required: true, maxLength: 32 }),
  InvoiceDate: date(),
  /** set by posting the invoice, never written by a client */
  IsPosted: boolean({ readOnly: true, default: false }),
  Customer: reference("Customer"),
  Details: collection(SalesInvoiceDetail, { inverse: "SalesInvoice" }),
};

export const SalesInvoice = entity("SalesInvoice", {
  naturalKey: "DocNumber",
  fields: invoiceFields,
  title: (i) => i.DocNumber,
});
export type SalesInvoiceRecord = RecordOf<typeof SalesInvoice>;
