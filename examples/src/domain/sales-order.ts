import { collection, date, decimal, entity, enumeration, integer, type RecordOf, reference, text } from "@bizdata/core";

// Declared apart from entity(): inside its `fields` the builders currently infer `required: true` as boolean, which would make every record property nullable.
const detailFields = {
  SalesOrder: reference("SalesOrder", { required: true }),
  LineNumber: integer({ min: 1 }),
  Product: reference("Product", { required: true }),
  Description: text(),
  Quantity: decimal({ precision: 18, scale: 4, required: true }),
  UnitPrice: decimal({ precision: 18, scale: 4 }),
};

/** A line of a sales order. Lines have no business key of their own, so they are known by Guid. */
export const SalesOrderDetail = entity("SalesOrderDetail", { naturalKey: "Guid", fields: detailFields });
export type SalesOrderDetailRecord = RecordOf<typeof SalesOrderDetail>;

const orderFields = {
  DocNumber: text({ required: true, maxLength: 32 }),
  Description: text(),
  OrderDate: date(),
  /** the sum of the lines' Quantity × UnitPrice, kept by the service */
  TotalPrice: decimal({ precision: 18, scale: 4, readOnly: true }),
  Status: enumeration(["Open", "Released", "Closed"], { default: "Open" }),
  SellToCustomer: reference("Customer"),
  PriceLevel: reference("PriceLevel"),
  Details: collection(SalesOrderDetail, { inverse: "SalesOrder" }),
};

export const SalesOrder = entity("SalesOrder", {
  naturalKey: "DocNumber",
  fields: orderFields,
  title: (o) => o.DocNumber,
});
export type SalesOrderRecord = RecordOf<typeof SalesOrder>;
