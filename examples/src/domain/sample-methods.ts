/**
 * The subscribers of the sample methods of spec 4.8, each doing real work on the sample data.
 * The methods are declared in their entities' `methods`; `subscribeSampleMethods` implements them
 * on a model through those entities (`SalesOrder.methods.ReorderFrom`), so each subscriber sees its
 * entity's record type, and the subscribers run in the order they are registered here.
 */
import type { Model } from "@bizdata/core";
import { Journal } from "./journal.js";
import { multiply } from "./money.js";
import { Product } from "./product.js";
import { SalesInvoice } from "./sales-invoice.js";
import { SalesOrder, SalesOrderDetail } from "./sales-order.js";

// the prices a call of UpdatePrices found, so that its undo can put them back (keyed by the call's record)
const pricesBefore = new WeakMap<object, (number | null)[]>();

/** Registers the sample subscribers on `model` (the sample model, or a test's model over the sample entities). */
export function subscribeSampleMethods(model: Model): Model {
  model.subscribe(SalesOrder.methods.ReorderFrom, {
    name: "CopyOrder",
    abortIf: {
      when: ({ record, args }) => record.Guid === args.salesOrderGuid,
      message: "An order cannot be reordered from itself.",
    },
    run: async ({ record, args, read, query, abort, update }) => {
      const source = await read(SalesOrder, args.salesOrderGuid);
      if (source === null) return abort(`There is no sales order ${args.salesOrderGuid}.`);
      const lines = await query(SalesOrderDetail, "SalesOrder eq @salesOrderGuid", { orderby: "LineNumber" });
      // the copies are bodies, not records yet: the write gives them their Guids and their order
      await update(SalesOrder, record.Guid, {
        SellToCustomer: source.SellToCustomer,
        Description: source.Description,
        Details: lines.map(({ Product, Quantity, UnitPrice, Description, LineNumber }) => ({
          Product,
          Quantity,
          UnitPrice,
          Description,
          LineNumber,
        })),
      });
    },
  });
  // an order that already has lines would lose them: ask first (on a plain request: go ahead)
  model.subscribe(SalesOrder.methods.ReorderFrom, {
    name: "ConfirmReplaceLines",
    abortIf: {
      when: ({ record }) => record.Details.length > 0,
      message: "The order already has lines; reordering replaces them.",
      askUser: {
        text: "The order already has lines. Replace them?",
        accept: "Replace",
        reject: "Keep",
        default: "accept",
      },
    },
  });

  model.subscribe(SalesOrder.methods.CalculateLineTotal, {
    name: "LineTotal",
    run: ({ record, args }) => {
      const quantity = record.Details.reduce((q, l) => q + l.Quantity, 0);
      const unitPrice = quantity === 0 ? 0 : (record.TotalPrice ?? 0) / quantity;
      const net = multiply(multiply(args.quantity, unitPrice), 1 - (args.discount ?? 0) / 100);
      return multiply(net, 1 + args.taxRate);
    },
  });

  model.subscribe(SalesOrder.methods.GetOpenOrders, {
    name: "OpenOrders",
    run: async ({ query }) => {
      const orders = await query(SalesOrder, "SellToCustomer/Id eq @customerId and Status eq 'Open'");
      return orders.map((o) => o.Guid);
    },
  });

  model.subscribe(Product.methods.GetDefaultMarkup, {
    name: "Markup",
    run: ({ record }) => {
      const cost = record.Cost ?? 0;
      return cost === 0 ? null : Math.round((((record.Price ?? 0) - cost) / cost) * 10_000) / 100;
    },
  });

  model.subscribe(Journal.methods.Post, {
    name: "Post",
    disableIf: (journal) => journal.IsPosted === true,
    abortIf: {
      when: ({ record }) => record.Amount === null,
      message: "A journal without an amount cannot be posted.",
    },
    run: ({ record }) => {
      record.IsPosted = true;
    },
  });

  model.subscribe(SalesInvoice.methods.UpdatePrices, {
    name: "ListPrices",
    disableIf: (invoice) => invoice.IsPosted === true,
    run: async ({ record, read, save }) => {
      pricesBefore.set(
        record,
        record.Details.map((l) => l.UnitPrice),
      );
      for (const line of record.Details) {
        const product = await read(Product, line.Product);
        line.UnitPrice = product?.Price ?? line.UnitPrice;
      }
      await save();
    },
    undo: async ({ record, save }) => {
      const before = pricesBefore.get(record) ?? [];
      record.Details.forEach((line, i) => {
        line.UnitPrice = before[i] ?? null;
      });
      await save();
    },
  });
  // with PriceLevels, lines of 10 or more are 5% cheaper, but never below the product's cost
  model.subscribe(SalesInvoice.methods.UpdatePrices, {
    name: "VolumeDiscount",
    feature: "PriceLevels",
    run: async ({ record, args, read, abort, save }) => {
      for (const line of record.Details) {
        if (line.Quantity >= 10) {
          const price = multiply(line.UnitPrice ?? 0, 0.95);
          const product = await read(Product, line.Product);
          if (price < (product?.Cost ?? 0)) abort(`The volume discount would sell ${product?.SKU} below cost.`);
          line.UnitPrice = price;
        }
        if (args.roundToCents) line.UnitPrice = Math.round((line.UnitPrice ?? 0) * 100) / 100;
      }
      await save();
    },
  });
  return model;
}
