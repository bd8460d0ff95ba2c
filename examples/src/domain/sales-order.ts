import {
  collection,
  date,
  decimal,
  entity,
  enumeration,
  guid,
  integer,
  method,
  type RecordOf,
  reference,
  text,
} from "@bizdata/core";
import {
  creditCheck,
  legacyCustomerId,
  priceLine,
  requireCustomer,
  requirePositiveQuantity,
  totalOrder,
} from "./sales-order-logic.js";

/** A line of a sales order. Lines have no business key of their own, so they are known by Guid. */
export const SalesOrderDetail = entity("SalesOrderDetail", {
  naturalKey: "Guid",
  fields: {
    SalesOrder: reference("SalesOrder", { required: true }),
    LineNumber: integer({ min: 1 }),
    Product: reference("Product", { required: true }),
    Description: text({ searchable: true }),
    Quantity: decimal({ precision: 18, scale: 4, required: true }),
    UnitPrice: decimal({ precision: 18, scale: 4 }),
  },
  hooks: { logic: [priceLine], save: [requirePositiveQuantity] },
});
export type SalesOrderDetailRecord = RecordOf<typeof SalesOrderDetail>;

export const SalesOrder = entity("SalesOrder", {
  naturalKey: "DocNumber",
  fields: {
    DocNumber: text({ required: true, maxLength: 32 }),
    Description: text(),
    OrderDate: date(),
    /** the sum of the lines' Quantity × UnitPrice, kept by the service */
    TotalPrice: decimal({ precision: 18, scale: 4, readOnly: true }),
    Status: enumeration(["Open", "Released", "Closed"], { default: "Open" }),
    SellToCustomer: reference("Customer"),
    PriceLevel: reference("PriceLevel"),
    Details: collection(SalesOrderDetail, { inverse: "SalesOrder" }),
  },
  title: (o) => o.DocNumber,
  hooks: { deserialize: [legacyCustomerId], logic: [totalOrder], save: [requireCustomer, creditCheck] },
  // implemented in sample-methods.ts
  methods: {
    /** copies customer, description and lines of another order into this one */
    ReorderFrom: method({
      description: "Copy the customer, description and lines of another sales order into this one",
      type: "modify",
      params: { salesOrderGuid: guid({ required: true }) },
    }),
    /** what a line of this order would come to: quantity at the order's average unit price, less discount, plus tax */
    CalculateLineTotal: method({
      description: "Total of a line at this order's average unit price, with tax and an optional discount",
      type: "read",
      params: {
        taxRate: decimal({ required: true, min: 0 }),
        quantity: integer({ required: true, min: 0 }),
        discount: decimal({ default: 0, min: 0, max: 100 }),
      },
      returns: { kind: "scalar", type: decimal() },
    }),
    GetOpenOrders: method({
      description: "The open sales orders of a customer",
      type: "read",
      isStatic: true,
      params: { customerId: text({ required: true }) },
      returns: { kind: "collection", entity: "SalesOrder" },
    }),
  },
  // open orders (GetOpenOrders, the order list's usual filter), and a customer's orders by status
  indexes: ["Status", ["SellToCustomer", "Status"]],
});
export type SalesOrderRecord = RecordOf<typeof SalesOrder>;
