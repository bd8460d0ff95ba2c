import { defineModel } from "@bizdata/core";
import { Contact } from "./contact.js";
import { Country } from "./country.js";
import { Customer } from "./customer.js";
import { Journal } from "./journal.js";
import { PriceLevel } from "./price-level.js";
import { Product, ProductUom } from "./product.js";
import { SalesInvoice, SalesInvoiceDetail } from "./sales-invoice.js";
import { SalesOrder, SalesOrderDetail } from "./sales-order.js";
import { SalesOrderImport } from "./sales-order-import.js";
import { subscribeSampleMethods } from "./sample-methods.js";

/** Every sample entity; `defineModel` checks their references and collections against each other. */
export const sampleEntities = [
  Country,
  Contact,
  Customer,
  PriceLevel,
  Product,
  ProductUom,
  SalesOrder,
  SalesOrderDetail,
  SalesInvoice,
  SalesInvoiceDetail,
  Journal,
] as const;

/** The sample model: the stored entities, the virtual SalesOrderImport and the sample methods' subscribers. */
export const sampleModel = subscribeSampleMethods(defineModel([...sampleEntities, SalesOrderImport]));

export type SampleEntityName = (typeof sampleEntities)[number]["name"];
