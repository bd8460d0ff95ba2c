/**
 * The sample methods of spec 4.8, each doing real work on the sample data. Declarations are
 * added to their entities' `methods`; `subscribeSampleMethods` implements them on a model, and
 * the subscribers run in the order they are registered there.
 */
import { boolean, decimal, guid, integer, type Model, method, text } from "@bizdata/core";
import { multiply } from "./money.js";

type Line = Record<string, unknown>;
const amount = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** copies customer, description and lines of another order into this one */
export const ReorderFrom = method({
  description: "Copy the customer, description and lines of another sales order into this one",
  type: "modify",
  params: { salesOrderGuid: guid({ required: true }) },
});

/** what a line of this order would come to: quantity at the order's average unit price, less discount, plus tax */
export const CalculateLineTotal = method({
  description: "Total of a line at this order's average unit price, with tax and an optional discount",
  type: "read",
  params: {
    taxRate: decimal({ required: true, min: 0 }),
    quantity: integer({ required: true, min: 0 }),
    discount: decimal({ default: 0, min: 0, max: 100 }),
  },
  returns: { kind: "scalar", type: decimal() },
});

export const GetOpenOrders = method({
  description: "The open sales orders of a customer",
  type: "read",
  isStatic: true,
  params: { customerId: text({ required: true }) },
  returns: { kind: "collection", entity: "SalesOrder" },
});

export const GetDefaultMarkup = method({
  description: "Markup of the list price over cost, in percent",
  type: "read",
  returns: { kind: "scalar", type: decimal() },
});

export const Post = method({
  description: "Post the journal; it cannot be changed afterwards",
  type: "modify",
  saveOnCompletion: true,
});

export const UpdatePrices = method({
  description: "Reprice the invoice's lines from the current product prices",
  type: "modify",
  params: { roundToCents: boolean({ default: false }) },
});

// the prices a call of UpdatePrices found, so that its undo can put them back (keyed by the call's record)
const pricesBefore = new WeakMap<object, unknown[]>();

/** Registers the sample subscribers on `model` (the sample model, or a test's model over the sample entities). */
export function subscribeSampleMethods(model: Model): Model {
  model.subscribe(ReorderFrom, {
    name: "CopyOrder",
    abortIf: {
      when: ({ record, args }) => record?.Guid === args.salesOrderGuid,
      message: "An order cannot be reordered from itself.",
    },
    run: async ({ record, args, read, query, abort, save }) => {
      const source = await read("SalesOrder", args.salesOrderGuid);
      if (source === null) abort(`There is no sales order ${args.salesOrderGuid}.`);
      const lines = await query("SalesOrderDetail", "SalesOrder eq @salesOrderGuid", { orderby: "LineNumber" });
      record!.SellToCustomer = source!.SellToCustomer;
      record!.Description = source!.Description;
      record!.Details = lines.map(({ Product, Quantity, UnitPrice, Description, LineNumber }) => ({
        Product,
        Quantity,
        UnitPrice,
        Description,
        LineNumber,
      }));
      await save();
    },
  });
  // an order that already has lines would lose them: ask first (on a plain request: go ahead)
  model.subscribe(ReorderFrom, {
    name: "ConfirmReplaceLines",
    abortIf: {
      when: ({ record }) => ((record?.Details as Line[] | undefined) ?? []).length > 0,
      message: "The order already has lines; reordering replaces them.",
      askUser: {
        text: "The order already has lines. Replace them?",
        accept: "Replace",
        reject: "Keep",
        default: "accept",
      },
    },
  });

  model.subscribe(CalculateLineTotal, {
    name: "LineTotal",
    run: ({ record, args }) => {
      const lines = (record?.Details as Line[] | undefined) ?? [];
      const quantity = lines.reduce((q, l) => q + amount(l.Quantity), 0);
      const unitPrice = quantity === 0 ? 0 : amount(record?.TotalPrice) / quantity;
      const net = multiply(multiply(args.quantity, unitPrice), 1 - (args.discount ?? 0) / 100);
      return multiply(net, 1 + args.taxRate);
    },
  });

  model.subscribe(GetOpenOrders, {
    name: "OpenOrders",
    run: async ({ query }) => {
      const orders = await query("SalesOrder", "SellToCustomer/Id eq @customerId and Status eq 'Open'");
      return orders.map((o) => o.Guid as string);
    },
  });

  model.subscribe(GetDefaultMarkup, {
    name: "Markup",
    run: ({ record }) => {
      const cost = amount(record?.Cost);
      return cost === 0 ? null : Math.round(((amount(record?.Price) - cost) / cost) * 10_000) / 100;
    },
  });

  model.subscribe(Post, {
    name: "Post",
    disableIf: (journal) => journal.IsPosted === true,
    abortIf: {
      when: ({ record }) => record?.Amount === null,
      message: "A journal without an amount cannot be posted.",
    },
    run: ({ record }) => {
      record!.IsPosted = true;
    },
  });

  model.subscribe(UpdatePrices, {
    name: "ListPrices",
    disableIf: (invoice) => invoice.IsPosted === true,
    run: async ({ record, read, save }) => {
      const lines = (record!.Details as Line[]) ?? [];
      pricesBefore.set(
        record!,
        lines.map((l) => l.UnitPrice),
      );
      for (const line of lines) {
        const product = await read("Product", line.Product as string);
        line.UnitPrice = product?.Price ?? line.UnitPrice;
      }
      await save();
    },
    undo: async ({ record, save }) => {
      const before = pricesBefore.get(record!) ?? [];
      ((record!.Details as Line[]) ?? []).forEach((line, i) => {
        line.UnitPrice = before[i];
      });
      await save();
    },
  });
  // with PriceLevels, lines of 10 or more are 5% cheaper, but never below the product's cost
  model.subscribe(UpdatePrices, {
    name: "VolumeDiscount",
    feature: "PriceLevels",
    run: async ({ record, args, read, abort, save }) => {
      for (const line of (record!.Details as Line[]) ?? []) {
        if (amount(line.Quantity) >= 10) {
          const price = multiply(amount(line.UnitPrice), 0.95);
          const product = await read("Product", line.Product as string);
          if (price < amount(product?.Cost)) abort(`The volume discount would sell ${product?.SKU} below cost.`);
          line.UnitPrice = price;
        }
        if (args.roundToCents) line.UnitPrice = Math.round(amount(line.UnitPrice) * 100) / 100;
      }
      await save();
    },
  });
  return model;
}
