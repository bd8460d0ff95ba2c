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
  label: "Order line",
  pluralLabel: "Order lines",
  fields: {
    SalesOrder: reference("SalesOrder", { required: true, label: "Sales order" }),
    LineNumber: integer({ min: 1, label: "Line" }),
    Product: reference("Product", { required: true, label: "Product", valueHelp: ["SalesDescription", "Price"] }),
    Description: text({ searchable: true, label: "Description" }),
    Quantity: decimal({ precision: 18, scale: 4, required: true, label: "Quantity" }),
    UnitPrice: decimal({ precision: 18, scale: 4, label: "Unit price" }),
  },
  lineItem: ["LineNumber", "Product", "Description", "Quantity", "UnitPrice"],
  hooks: { logic: [priceLine], save: [requirePositiveQuantity] },
});
export type SalesOrderDetailRecord = RecordOf<typeof SalesOrderDetail>;

export const SalesOrder = entity("SalesOrder", {
  naturalKey: "DocNumber",
  label: "Sales order",
  pluralLabel: "Sales orders",
  fields: {
    DocNumber: text({ required: true, maxLength: 32, label: "Order number" }),
    Description: text({ label: "Description" }),
    OrderDate: date({ label: "Order date" }),
    /** the sum of the lines' Quantity × UnitPrice, kept by the service */
    TotalPrice: decimal({ precision: 18, scale: 4, readOnly: true, label: "Total" }),
    Status: enumeration(["Open", "Released", "Closed"], { default: "Open", label: "Status" }),
    SellToCustomer: reference("Customer", { label: "Customer", valueHelp: ["Name"] }),
    PriceLevel: reference("PriceLevel", { label: "Price level", valueHelp: ["DiscountPercent"] }),
    Details: collection(SalesOrderDetail, { inverse: "SalesOrder", label: "Lines" }),
  },
  lineItem: ["DocNumber", "Description", "SellToCustomer/Name", "Status", "OrderDate", "TotalPrice"],
  fieldGroups: {
    Order: { label: "Order", fields: ["DocNumber", "Description", "OrderDate", "Status"] },
    Customer: { label: "Customer", fields: ["SellToCustomer", "PriceLevel"] },
    Amounts: { label: "Amounts", fields: ["TotalPrice"] },
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
